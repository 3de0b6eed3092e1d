/* Bitcode. ctor_hook is external and nothing calls it: it runs only because
   it is a constructor. */
#include <stdio.h>

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

__attribute__((constructor)) void ctor_hook(void) {
    puts("ctor_hook ran");
}

int main(void) {
    puts("main");
    return 0;
}
