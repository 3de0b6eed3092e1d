/* A native program: calls lib_api from the LTO-built shared library, both
   linked against it and through dlopen. */
#include <dlfcn.h>
#include <stdio.h>

int lib_api(int);

int main(void) {
    printf("lib_api(6) = %d\n", lib_api(6));
    void *h = dlopen("libapi.so", RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    int (*f)(int) = (int (*)(int))dlsym(h, "lib_api");
    printf("dlsym lib_api(7) = %d\n", f ? f(7) : -1);
    return 0;
}
