/* Bitcode. from_native is called only by native.c, an ordinary (non-LTO)
   object, so LTO must keep it. */
#include <stdio.h>

int native_entry(int);

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

int from_native(int x) {
    return x * 100 + 7;
}

int main(void) {
    printf("native_entry(4) = %d\n", native_entry(4));
    return 0;
}
