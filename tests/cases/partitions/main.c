#include <stdio.h>

unsigned first(unsigned x);
unsigned second(unsigned x);
unsigned count(void);

int main(int argc, char **argv) {
  (void)argv;
  unsigned a = first((unsigned)argc);
  unsigned b = second(a);
  printf("%u %u %u\n", a, b, count());
  return 0;
}
