/* A native shared library that calls the executable's callback with a function of
   its own. */
typedef int (*op_fn)(int);

static int lib_fn(int x) { return x * 1000; }

int each(int (*cb)(op_fn, int), int x) { return cb(lib_fn, x); }
