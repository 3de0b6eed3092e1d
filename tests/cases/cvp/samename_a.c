/* A static `helper` here and another in samename_b.c: promotion must call each one. */
typedef int (*op_fn)(int);
static int helper(int x) { return x + 100; }
op_fn get_a(void) { return helper; }
