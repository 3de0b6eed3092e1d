#include <stdio.h>

typedef int (*op_fn)(int);
extern op_fn slot;
int u1(int x);
void stash(void *where, op_fn f);

int main(void) {
    stash(&slot, u1);
    printf("slot(10) = %d\n", slot(10)); /* site:stashed */
    return 0;
}
