#include "vm.h"

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * (b | 1); }
static long op_xor(long a, long b) { return a ^ (b << 3); }

const handler dispatch[4] = {op_add, op_sub, op_mul, op_xor};

long step_fast(long acc, unsigned char op, long arg) { return dispatch[op & 3](acc, arg); }

long step_checked(long acc, unsigned char op, long arg) {
  if (op > 250)
    return acc;
  return dispatch[op & 3](acc, arg);
}
