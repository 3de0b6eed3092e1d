// libinterpose.so: foo and lib_var are defined and used inside the library.
// With default visibility and no -Bsymbolic, the library's own uses go
// through the PLT/GOT, so an LD_PRELOAD library defining them wins.
// (Compiled with -fPIC -fsemantic-interposition: clang-14 otherwise binds
// calls to foo locally, and noinline keeps foo out of its callers.)
__attribute__((noinline)) int foo(void) { return 1; }

int lib_var = 5;

int lib_calls_foo(void) { return foo() * 10; }

int lib_reads_var(void) { return lib_var; }
