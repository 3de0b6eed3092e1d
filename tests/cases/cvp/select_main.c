/* CVP through a select: a ternary on a run-time value picks the function. */
#include <stdio.h>
#include <stdlib.h>

int sel_a(int x);
int sel_b(int x);

__attribute__((noinline)) int run(int which, int x) {
    int (*f)(int) = which > 1 ? sel_a : sel_b;
    return f(x); /* site:select */
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 0;
    printf("%d %d\n", run(n, 5), run(n + 2, 5));
    return 0;
}
