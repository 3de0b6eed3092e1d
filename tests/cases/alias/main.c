#include <stdio.h>
#include <stdlib.h>

void distinct_globals(int *x, const int *y);
void wrapper_blocks(int *x, const int *y);
void stack_and_global(int *x, const int *y);
void outside_and_private(int *x, const int *y);
void same_object(int *x, const int *y);
void outside_and_escaped(int *x, const int *y);
int *outside(void);
void keep(int *p);

int g1 = 1, g2 = 2, g3 = 3, shared = 4, escaped = 5, private_g = 6;

/* An allocation wrapper: each call site gets its own heap object. */
__attribute__((noinline)) static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

int main(void) {
    distinct_globals(&g1, &g2);
    distinct_globals(&g3, &g2);

    int *a = xmalloc(sizeof *a), *b = xmalloc(sizeof *b);
    *a = 10;
    *b = 20;
    wrapper_blocks(a, b);

    int local = 7;
    stack_and_global(&local, &g1);

    keep(&escaped);
    outside_and_private(outside(), &private_g);
    outside_and_escaped(outside(), &escaped);

    same_object(&shared, &shared);
    same_object(&g1, &g2);

    printf("%d %d %d %d %d %d %d\n", g1, g3, *a, local, shared, *outside(), escaped);
    free(a);
    free(b);
    return 0;
}
