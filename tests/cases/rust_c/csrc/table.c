/* The C half of rust_c. c_add is small enough to be inlined into Rust; C_OPS is a
   table of C functions Rust calls through; callbacks holds Rust functions C calls
   through; c_square_plus calls a Rust function directly (inlined into C). */

int c_add(int a, int b) { return a + b; }

static int c_sub(int a, int b) { return a - b; }
static int c_mul(int a, int b) { return a * b; }
static int c_xor(int a, int b) { return a ^ b; }

int (*const C_OPS[3])(int, int) = {c_sub, c_mul, c_xor};

int rs_square(int);
int rs_negate(int);

static int (*const callbacks[2])(int) = {rs_square, rs_negate};

__attribute__((noinline)) int c_apply_callback(int which, int x) {
  return callbacks[which & 1](x);
}

__attribute__((noinline)) int c_square_plus(int x) { return rs_square(x) + 1; }
