#include <stdio.h>
int fake_fn(int);
int main(void) {
  printf("fake_fn(2) = %d\n", fake_fn(2));
  return 0;
}
