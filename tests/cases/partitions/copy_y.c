/* Owned by the middle partition: `mix_y`, called by big_y and by the main program. The
 * last partition holds a copy of it from a module linked before the caller's. */
#include "big.h"

unsigned mix_y(unsigned v) { return (v + (v << 3)) ^ 0x5bd1e995u; }

unsigned big_y(unsigned x) {
  S400(5)
  return mix_y(x);
}
