#include "tls.h"

__thread int tls_init = 42;
__thread long tls_zero;
__thread char tls_buf[32] = "initial";
__thread __attribute__((aligned(64))) char tls_aligned[16];

static __thread int local_counter = 7;
static __thread int local_other; /* second local TLS var: exercises LD with two offsets */

int bump_local(void) {
  local_other += 2;
  return ++local_counter + local_other - local_other;
}

int *addr_of_tls_init(void) { return &tls_init; }
long *addr_of_tls_zero(void) { return &tls_zero; }
