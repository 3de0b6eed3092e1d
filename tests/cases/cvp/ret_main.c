#include <stdio.h>

typedef int (*op_fn)(int);
op_fn pick(int k);

int main(int argc, char **argv) {
    (void)argv;
    for (int k = 0; k < 2; k++) {
        op_fn f = pick(k ^ (argc > 1));
        printf("pick(%d)(3) = %d\n", k, f(3)); /* site:ret */
    }
    return 0;
}
