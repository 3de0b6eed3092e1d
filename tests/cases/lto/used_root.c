/* Bitcode. keep_me is static and never called: only
   __attribute__((used)) keeps it. */
#include <stdio.h>

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

static __attribute__((used)) void keep_me(void) {
    puts("keep_me");
}

int main(void) {
    puts("main");
    return 0;
}
