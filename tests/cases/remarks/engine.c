/* The remark tools' test program: LTO inlines `scale` (scale.c) into `run`, and `run`
 * calls `twice` or `thrice` through a function pointer that whole-program analysis
 * resolves. Built with -DCHANGED, `scale` is noinline (the inlining is lost) and the
 * pointer is an exported variable that a shared library could set (the devirtualization
 * is lost): what `rld remarks diff` and `check` must name. */
#include <stdio.h>
#include <stdlib.h>

typedef int (*op_fn)(int);

int scale(int x);

static int twice(int x) {
    return 2 * x;
}

static int thrice(int x) {
    return 3 * x;
}

/* Linked with -Wl,-E: only the changed build exports the pointer. */
#ifdef CHANGED
op_fn current_op;
#else
__attribute__((visibility("hidden"))) op_fn current_op;
#endif

__attribute__((noinline)) int run(int n) {
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += current_op(scale(i));
    return acc;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    current_op = argc > 2 ? thrice : twice;
    printf("run(%d) = %d\n", n, run(n));
    return 0;
}
