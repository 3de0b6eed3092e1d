// A signed integer overflow for UndefinedBehaviorSanitizer (built with
// -fno-sanitize-recover=all, so the first report ends the program).
#include <limits.h>
#include <stdio.h>

__attribute__((noinline)) int add_checked(int a, int b) { return a + b; }

int main(int argc, char **argv) {
    (void)argv;
    printf("1 + 2 = %d\n", add_checked(1, 2));
    fflush(stdout);
    printf("not reached: %d\n", add_checked(INT_MAX, argc));
    return 0;
}
