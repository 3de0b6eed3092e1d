/* A native shared library handing function pointers to the executable: returned,
   written into the caller's table, or found by dlsym. */
typedef int (*op_fn)(int);

struct callbacks {
    op_fn on_a;
    op_fn on_b;
};

static int lib_triple(int x) { return x * 3; }
static int lib_negate(int x) { return -x; }
int lib_square(int x) { return x * x; }

op_fn lib_get_op(void) { return lib_triple; }

void lib_fill(struct callbacks *cb) {
    cb->on_a = lib_negate;
    cb->on_b = lib_triple;
}
