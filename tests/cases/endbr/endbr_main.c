/* Calls helper directly and via_ptr through a pointer. */
#include <stdio.h>
int helper(int x);
int via_ptr(int x);
int (*volatile fp)(int) = via_ptr;
int main(int argc, char **argv) {
    (void)argv;
    printf("%d %d\n", helper(argc + 1), fp(argc));
    return 0;
}
