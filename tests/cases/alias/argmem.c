/* Functions that touch only what their pointer arguments point to, even through calls
 * whose targets are picked at run time: the whole program proves them argmemonly where
 * LLVM, which cannot see through the indirect call, does not. */
#include <stdio.h>

int counter;

static void fill_a(int *p) { p[0] = 1; }
static void fill_b(int *p) { p[1] += 2; }
static void count(int *p) { p[0] = 3; counter++; }

void (*fills[2])(int *) = {fill_a, fill_b};
void (*counts[2])(int *) = {fill_a, count};

/* Writes only through p, whichever filler it is given. */
__attribute__((noinline)) void fill_through(void (*fill)(int *), int *p) { fill(p); }

/* May also write `counter` (count does). */
__attribute__((noinline)) void count_through(void (*fill)(int *), int *p) { fill(p); }

int main(int argc, char **argv) {
    (void)argv;
    int a[2] = {0, 0}, b[2] = {0, 0};
    fill_through(fills[argc % 2], a);
    fill_through(fills[(argc + 1) % 2], a);
    count_through(counts[argc % 2], b);
    count_through(counts[(argc + 1) % 2], b);
    printf("%d %d %d %d %d\n", a[0], a[1], b[0], b[1], counter);
    return 0;
}
