// libpreload.so, for LD_PRELOAD: another definition of foo and lib_var.
int foo(void) { return 2; }

int lib_var = 7;
