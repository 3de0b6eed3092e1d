// libinterpose.so with a weak foo: -Bsymbolic-non-weak-functions and -Bsymbolic-non-weak
// bind only non-weak definitions locally, so this foo stays preemptible (lib_var, non-weak,
// binds locally under -Bsymbolic-non-weak).
__attribute__((weak, noinline)) int foo(void) { return 1; }

int lib_var = 5;

int lib_calls_foo(void) { return foo() * 10; }

int lib_reads_var(void) { return lib_var; }
