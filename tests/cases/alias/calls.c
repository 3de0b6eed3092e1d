/* Calls through function pointers: which memory a hook may touch is known only from the
 * whole program (the hooks are picked at run time from tables). */
#include <stdio.h>

int counter_a, counter_b, counter_c;
int table[64];
int scale;

static void bump_a(void) { counter_a++; }
static void bump_b(void) { counter_b += 2; }
static void bump_c(void) { counter_c += 3; }
static int peek_a(void) { return counter_a; }
static int peek_b(void) { return counter_b; }
static int peek_c(void) { return counter_c; }

void (*hooks[3])(void) = {bump_a, bump_b, bump_c};
int (*peeks[3])(void) = {peek_a, peek_b, peek_c};

/* No hook writes `scale` or `table`: the loads need not be repeated after each call. */
__attribute__((noinline)) int sum_with_hook(void (*hook)(void), int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += table[i & 63] * scale;
        hook();
    }
    return s;
}

/* Only reads memory, whichever hook it is given: readonly. */
__attribute__((noinline)) int peek_through(int (*peek)(void)) { return peek() + 1; }

int main(int argc, char **argv) {
    (void)argv;
    for (int i = 0; i < 64; i++)
        table[i] = i;
    scale = argc + 1;
    int s = sum_with_hook(hooks[argc % 3], 100);
    int p = peek_through(peeks[argc % 3]);
    printf("%d %d %d %d %d\n", s, counter_a, counter_b, counter_c, p);
    return 0;
}
