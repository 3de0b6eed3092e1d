/* CVP through an argument: apply's only callers (in arg_main.c and arg_other.c)
   pass g1 and g2. apply is not static, so only the linker knows all its callers. */
__attribute__((noinline)) int apply(int (*f)(int), int x) {
    return f(x) + 1; /* site:apply */
}
