#include <stdio.h>

typedef int (*op_fn)(int);
extern op_fn nfp;
void native_set(void);

int main(void) {
    native_set();
    printf("nfp(2) = %d\n", nfp(2)); /* site:native */
    return 0;
}
