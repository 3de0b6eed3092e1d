/* A native shared library that calls the executable's visit() with its own function. */
typedef int (*op_fn)(int);
int visit(op_fn f, int x);

static int lib_fn(int x) { return x * 1000; }

int lib_drive(int x) { return visit(lib_fn, x); }
