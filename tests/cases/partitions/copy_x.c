/* Owned by the first of three partitions: a small function (`mix_x`) that big_x and the
 * main program in the last partition both call. */
#include "big.h"

unsigned mix_x(unsigned v) { return (v ^ (v >> 5)) * 9u; }

unsigned big_x(unsigned x) {
  S400(3)
  return mix_x(x);
}
