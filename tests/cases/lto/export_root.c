/* Bitcode. exported_fn is never called directly: -E puts it in .dynsym and
   main finds it with dlsym. */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

int exported_fn(int x) {
    return x * 3;
}

int main(void) {
    int (*f)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "exported_fn");
    if (!f) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    printf("exported_fn(14) = %d\n", f(14));
    return 0;
}
