/* Bitcode (clang -flto) linked by a host running rld's plugin: the host's resolution
 * decides what survives LTO. */
#include <stdio.h>

int native_call(int); /* live_native.c: a regular object */
int dso_call(int);    /* live_dso.c: a shared library */

int used_by_native(int x) { return x + 1; }  /* only native code calls it */
int used_by_dso(int x) { return x * 2; }     /* only the shared library calls it */
int unused_anywhere(int x) { return x - 3; } /* nothing calls it: dropped */

int main(void) {
  printf("%d %d\n", native_call(1), dso_call(2));
  return 0;
}
