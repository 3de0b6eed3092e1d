#include <stdio.h>

extern int lib_data;
int lib_fn(int x);
void *lib_fn_addr(void);
int *lib_data_addr(void);
int lib_read_data(void);
int lib_call_through(int (*fn)(int), int x);

int (*const fn_table[])(int) = {lib_fn};   // the address in static data

int main(void) {
    printf("&lib_fn same in executable and library: %s\n",
           (void *)&lib_fn == lib_fn_addr() && (void *)fn_table[0] == lib_fn_addr() ? "yes" : "no");
    printf("&lib_data same in executable and library: %s\n",
           &lib_data == lib_data_addr() ? "yes" : "no");
    printf("lib_data initially %d\n", lib_data);
    lib_data = 99;
    printf("library reads %d after the executable wrote 99\n", lib_read_data());
    printf("library calls through the executable's pointer: %d\n", lib_call_through(lib_fn, 14));
    return 0;
}
