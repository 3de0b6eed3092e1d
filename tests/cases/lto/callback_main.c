/* Bitcode. callback is referenced only by libcallback.so, never here. */
#include <stdio.h>

int call_back(int);

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

int callback(int x) {
    return x + 1000;
}

int main(void) {
    printf("call_back(5) = %d\n", call_back(5));
    return 0;
}
