#include <stdio.h>
int from_archive(int); /* a bitcode member of libbc.a */
int main(void) {
  printf("%d\n", from_archive(5));
  return 0;
}
