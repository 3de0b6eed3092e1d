/* strtol stores a pointer into its (captured, readonly) string through its second
   argument: nothing but the declaration's attributes says so. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  (void)argv;
  char buf[16] = "123abc";
  buf[0] = (char)('0' + argc);
  char *end;
  long n = strtol(buf, &end, 10);
  char before = buf[3];
  *end = 'X';
  printf("%ld %c %s\n", n, before, buf);
  return 0;
}
