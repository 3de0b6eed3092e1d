/* Functions identical code folding can fold: twins, mutually identical recursion,
   identical functions naming equal strings, one whose address is taken. */
#include <stdio.h>
int add_a(int x, int y) { return x * 3 + y; }
int add_b(int x, int y) { return x * 3 + y; }
static int rec_a(int n) { return n <= 0 ? 0 : 1 + rec_a(n - 1); }
static int rec_b(int n) { return n <= 0 ? 0 : 1 + rec_b(n - 1); }
int use_a(void) { return rec_a(5); }
int use_b(void) { return rec_b(5); }
const char *name_a(void) { return "same"; }
const char *name_b(void) { return "same"; }
int differs(int x) { return x * 4 + 1; }
int (*taken)(int, int) = add_a;
int main(void) {
    printf("%d %d %d %d %s %s %d %d\n", add_a(1, 2), add_b(1, 2), use_a(), use_b(), name_a(), name_b(), differs(2), taken(2, 2));
    printf("%d\n", (void *)add_a == (void *)add_b);
    return 0;
}
