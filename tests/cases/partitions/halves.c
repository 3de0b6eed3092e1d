/* Two big functions, each with a hot loop calling the small `scale` (in scale.c), and a
 * static counter both update: with two LTO partitions, first (which main inlines) lands in
 * the first, second (a little bigger) in the other. */
#include "big.h"

unsigned scale(unsigned v);
static unsigned counter;

unsigned first(unsigned x) {
  S400(1)
  for (unsigned i = 0; i < 1000; i++)
    x += scale(x + i);
  counter++;
  return x;
}

unsigned second(unsigned x) {
  S400(7)
  S100(9)
  for (unsigned i = 0; i < 1000; i++)
    x += scale(x ^ i);
  counter += 2;
  return x;
}

unsigned count(void) { return counter; }
