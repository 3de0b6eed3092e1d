// Like lib.c, but foo is protected: it is exported, yet the library's own
// call always binds to its own definition, even under LD_PRELOAD.
__attribute__((visibility("protected"), noinline)) int foo(void) { return 1; }

int lib_var = 5;

int lib_calls_foo(void) { return foo() * 10; }

int lib_reads_var(void) { return lib_var; }
