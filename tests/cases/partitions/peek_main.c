#include <stdio.h>
#include "big.h"

unsigned peek(unsigned x);
void bump(void);
unsigned filler(unsigned x);

int main(int argc, char **argv) {
  (void)argv;
  unsigned s = filler((unsigned)argc);
  for (unsigned i = 0; i < 4; i++)
    s += peek(7);
  bump();
  printf("%u\n", s + peek(7));
  return 0;
}

/* After main: the partitioner walks the call graph from definitions in order. */
__attribute__((noinline)) unsigned filler(unsigned x) {
  S400(13)
  S100(17)
  return x;
}
