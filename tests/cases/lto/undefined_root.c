/* Bitcode. Nothing calls kept_by_u; the link names it with -u. */
#include <stdio.h>

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

int kept_by_u(int x) {
    return x + 41;
}

int main(void) {
    puts("main");
    return 0;
}
