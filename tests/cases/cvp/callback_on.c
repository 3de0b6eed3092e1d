/* on_item's parameter gets v1 from the executable and, once on_item's address is
   passed to libcallback.so, lib_fn from the library. */
typedef int (*op_fn)(int);

__attribute__((noinline)) int on_item(op_fn f, int x) {
    return f(x) + 1; /* site:on_item */
}
