#include <stdio.h>

typedef int (*op_fn)(int);
extern const op_fn table[4];

int main(int argc, char **argv) {
    (void)argv;
    int acc = 7;
    for (int i = 0; i < 10; i++) {
        acc = table[(i + argc) & 3](acc); /* site:table */
        printf("%d ", acc);
    }
    printf("\n");
    return 0;
}
