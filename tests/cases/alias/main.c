#include <stdio.h>
#include <stdlib.h>

void distinct_globals(int *x, const int *y);
void wrapper_blocks(int *x, const int *y);
void stack_and_global(int *x, const int *y);
void outside_and_private(int *x, const int *y);
void same_object(int *x, const int *y);
void outside_and_escaped(int *x, const int *y);
void distinct_fields(int *x, const int *y);
void array_and_later_field(int *x, const int *y);
int *outside(void);
void keep(int *p);

int g1 = 1, g2 = 2, g3 = 3, shared = 4, escaped = 5, private_g = 6;

/* Fields of one object: two ints (type-based analysis cannot tell them apart), an array
 * indexed at run time, and a field after it, which an index past the array's end (the C
 * "struct hack") may reach. f1 and f2 are apart: indexing f2 at run time makes it one
 * location for the points-to analysis. */
struct fields {
    int a, b;
    int arr[4];
    int after;
} f1 = {1, 2, {3, 4, 5, 6}, 7}, f2 = {1, 2, {3, 4, 5, 6}, 7};

/* An allocation wrapper: each call site gets its own heap object. */
__attribute__((noinline)) static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

int main(int argc, char **argv) {
    (void)argv;
    int i = argc; /* 1: not known before the program runs */
    distinct_fields(&f1.a, &f1.b);
    array_and_later_field(&f2.arr[i], &f2.after);
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
    printf("%d %d %d\n", f1.a, f2.arr[1], f2.after);
    free(a);
    free(b);
    return 0;
}
