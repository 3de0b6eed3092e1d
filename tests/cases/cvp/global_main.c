/* The call through fp: clang cannot see what choose() stores, only the linker can. */
#include <stdio.h>

extern int (*fp)(int);
void choose(int which);

int main(int argc, char **argv) {
    (void)argv;
    for (int k = 0; k < 2; k++) {
        choose(k ^ (argc > 1));
        printf("fp(10) = %d\n", fp(10)); /* site:global */
    }
    return 0;
}
