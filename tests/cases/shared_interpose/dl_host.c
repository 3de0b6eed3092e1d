#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "./plugin.so";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen failed: %s\n", dlerror());
        return 1;
    }
    int (*add)(int) = (int (*)(int))dlsym(h, "plugin_add");
    int *counter = (int *)dlsym(h, "plugin_counter");
    int *ready = (int *)dlsym(h, "plugin_ready");
    int (*(*get_private)(void))(void) = (int (*(*)(void))(void))dlsym(h, "plugin_get_private");
    if (!add || !counter || !ready || !get_private) {
        printf("dlsym failed: %s\n", dlerror());
        return 1;
    }
    printf("ready=%d add(1)=%d\n", *ready, add(1));
    *counter = 1000;
    printf("after writing the counter: add(1)=%d\n", add(1));
    printf("private through a pointer: %d\n", get_private()());
    void *none = dlsym(h, "plugin_private");
    const char *err = dlerror();
    printf("static symbol found: %s, dlerror names it: %s\n", none ? "yes" : "no",
           err && strstr(err, "plugin_private") ? "yes" : "no");
    Dl_info info;
    if (dladdr((void *)add, &info) && info.dli_sname)
        printf("dladdr(add): %s\n", info.dli_sname);
    printf("dlclose: %d\n", dlclose(h));
    return 0;
}
