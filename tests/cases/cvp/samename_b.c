typedef int (*op_fn)(int);
static int helper(int x) { return x + 200; }
op_fn get_b(void) { return helper; }
