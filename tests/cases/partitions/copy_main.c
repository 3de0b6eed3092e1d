/* The last partition: two functions (main and churn) call the small functions the two
 * other partitions own, so they are copied here, not moved, and inlined. */
#include <stdio.h>
#include "big.h"

unsigned mix_x(unsigned v);
unsigned mix_y(unsigned v);
unsigned big_x(unsigned x);
unsigned big_y(unsigned x);

__attribute__((noinline)) static unsigned churn(unsigned x) {
  S400(11)
  return mix_x(x) - mix_y(x);
}

int main(int argc, char **argv) {
  (void)argv;
  unsigned x = (unsigned)argc;
  for (unsigned i = 0; i < 1000; i++)
    x = mix_x(x + i) + mix_y(x ^ i);
  printf("%u %u %u\n", x, big_x(x), big_y(churn(x)));
  return 0;
}
