#include <stdio.h>

typedef int (*op_fn)(int);
int on_item(op_fn f, int x);
int each(int (*cb)(op_fn, int), int x);

int v1(int x) { return x + 5; }

int main(void) {
    printf("on_item(v1, 1) = %d\n", on_item(v1, 1));
    printf("each(on_item, 2) = %d\n", each(on_item, 2));
    return 0;
}
