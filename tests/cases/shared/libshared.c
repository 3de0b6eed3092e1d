/* A shared library built by rld: exported functions and data, a TLS variable,
 * a call back into the executable, and calls between its own exported symbols. */
#include <stdio.h>

int exe_callback(int x); /* defined by the executable */

int lib_counter = 1;
__thread int lib_tls = 5;
static int ctor_ran;

__attribute__((constructor)) static void lib_init(void) {
  lib_counter = 10;
  ctor_ran = 1;
}

__attribute__((visibility("hidden"))) int lib_hidden(int x) { return x * 3; }

int lib_add(int a, int b) { return a + b; }
int lib_twice(int x) { return lib_add(x, x) + lib_hidden(0); }
int lib_call_exe(int x) { return exe_callback(x) + 1; }
int lib_read_counter(void) { return lib_counter; }
int lib_read_tls(void) { return lib_tls; }
int (*lib_addr_of_add(void))(int, int) { return lib_add; }
const char *lib_name(void) { return ctor_ran ? "libshared (ctor ran)" : "libshared (no ctor)"; }
