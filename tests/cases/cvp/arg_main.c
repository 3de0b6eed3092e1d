#include <stdio.h>

int apply(int (*f)(int), int x);
int other(int x);

int g1(int x) { return x * 10; }

int main(void) {
    printf("apply(g1, 4) = %d\n", apply(g1, 4));
    printf("other(4) = %d\n", other(4));
    return 0;
}
