/* Constructors and destructors spread over partitions run once each, in priority order. */
#include <stdio.h>
#include "big.h"

__attribute__((constructor(101))) static void early(void) { puts("ctor 101"); }
__attribute__((constructor(300))) static void late(void) { puts("ctor 300"); }
__attribute__((destructor)) static void bye(void) { puts("dtor"); }

__attribute__((noinline)) unsigned filler_a(unsigned x) {
  S400(3)
  return x;
}
