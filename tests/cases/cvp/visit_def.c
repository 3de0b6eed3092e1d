/* visit's parameter gets v1 from the executable, and lib_fn from libvisit.so. */
typedef int (*op_fn)(int);

__attribute__((noinline)) int visit(op_fn f, int x) {
    return f(x) + 1; /* site:visit */
}
