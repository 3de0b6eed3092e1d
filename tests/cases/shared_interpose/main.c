#include <stdio.h>

int foo(void);
int lib_calls_foo(void);
int lib_reads_var(void);
extern int lib_var;

int main(void) {
    printf("main: foo()=%d lib_var=%d\n", foo(), lib_var);
    printf("library: foo()*10=%d lib_var=%d\n", lib_calls_foo(), lib_reads_var());
    return 0;
}
