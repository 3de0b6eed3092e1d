/* `peek` only reads memory (the whole-program mod/ref proves it; its own module's
 * declaration elsewhere does not say so); `bump` writes. */
#include "big.h"

unsigned level = 3;

unsigned peek(unsigned x) {
  x += level;
  S400(11)
  return x;
}

void bump(void) { level++; }
