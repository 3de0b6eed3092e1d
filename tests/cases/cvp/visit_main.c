#include <stdio.h>

typedef int (*op_fn)(int);
int visit(op_fn f, int x);
int lib_drive(int x);

int v1(int x) { return x + 5; }

int main(void) {
    printf("visit(v1, 1) = %d\n", visit(v1, 1));
    printf("lib_drive(2) = %d\n", lib_drive(2));
    return 0;
}
