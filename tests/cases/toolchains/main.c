// Compiled by clang-22 -flto=thin: its module carries a ThinLTO summary.
#include <stdio.h>
unsigned mid_step(unsigned);
unsigned rs_mix(unsigned, unsigned);
int main(int argc, char **argv) {
  unsigned h = (unsigned)argc;
  for (int i = 0; i < 1000; i++) h = rs_mix(mid_step(h), (unsigned)i);
  printf("%u\n", h);
  return 0;
}
