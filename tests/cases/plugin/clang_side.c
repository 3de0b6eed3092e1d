#include <stdio.h>
int from_gcc(int);
int from_gcc_fat(int);
int main(void) {
  printf("%d %d\n", from_gcc(2), from_gcc_fat(3));
  return 0;
}
