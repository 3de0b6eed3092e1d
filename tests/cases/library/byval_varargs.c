/* Structures passed by value to a variadic function travel in memory (`byval`): the call
   itself reads them, and va_arg finds their bytes in the argument area. */
#include <stdarg.h>
#include <stdio.h>
typedef struct { char x[40]; } Big;
static int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++) {
    Big b = va_arg(ap, Big);
    for (int j = 0; j < 40; j++) s += b.x[j] * (i + 1);
  }
  va_end(ap);
  return s;
}
int main(int argc, char **argv) {
  (void)argv;
  Big a, b;
  for (int j = 0; j < 40; j++) {
    a.x[j] = (char)(j + argc);
    b.x[j] = (char)(2 * j);
  }
  printf("%d\n", sum(2, a, b));
  return 0;
}
