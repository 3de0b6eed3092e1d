/* Built with -fno-builtin, as freestanding code or a C library is: the program's own memcpy,
 * which does more than copy. A call to it is a call like any other: the alias analysis must
 * not take it for the library's memcpy, which touches only the bytes it copies. */
#include <stddef.h>
#include <stdio.h>

int copies;

__attribute__((noinline)) void *memcpy(void *d, const void *s, size_t n) {
  volatile char *dd = d;
  const char *ss = s;
  for (size_t i = 0; i < n; i++)
    dd[i] = ss[i];
  copies++;
  return d;
}

__attribute__((noinline)) int copy_and_count(char *d, const char *s) {
  int before = copies;
  memcpy(d, s, 4);
  return copies - before;
}

int main(void) {
  char a[4] = "abc", b[4];
  int n = copy_and_count(b, a);
  printf("%d %s\n", n, b);
  return 0;
}
