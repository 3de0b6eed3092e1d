#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  int (*compute)(int) = (int (*)(int))dlsym(h, "plugin_compute");
  const char *(*state)(void) = (const char *(*)(void))dlsym(h, "plugin_state");
  const char *(*name)(int) = (const char *(*)(int))dlsym(h, "plugin_name");
  int *data = (int *)dlsym(h, "plugin_data");
  if (!compute || !state || !name || !data) {
    printf("FAIL: dlsym: %s\n", dlerror());
    return 1;
  }
  printf("state: %s\n", state());
  printf("data: %d\n", *data);
  printf("compute: %d %d\n", compute(1), compute(2));
  printf("names: %s %s %s\n", name(0), name(1), name(5));
  printf("hidden static symbol visible: %s\n", dlsym(h, "plugin_init") ? "yes" : "no");
  dlclose(h);
  puts("closed");
  return 0;
}
