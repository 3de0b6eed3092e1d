/* Two big functions printing the same string literal (one private constant of the module)
 * and reading one constant table: with two LTO partitions they land in different ones, so
 * both constants are shared across the cut. */
#include <stdio.h>
#include "big.h"

static const unsigned weights[4] = {3, 5, 7, 11};

__attribute__((noinline)) unsigned loud(unsigned x) {
  S400(3)
  printf("shared message %u\n", weights[x & 3]);
  return x;
}

__attribute__((noinline)) unsigned quiet(unsigned x) {
  S400(5)
  S100(2)
  printf("shared message %u\n", weights[(x >> 3) & 3]);
  return x;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%u\n", quiet(loud((unsigned)argc)));
  return 0;
}
