/* With -E (--export-dynamic) the executable's own symbols are in .dynsym and
 * dlsym can find them. */
#include <dlfcn.h>
#include <stdio.h>

int exported_double(int x) { return 2 * x; }

int main(void) {
  void *self = dlopen(NULL, RTLD_NOW);
  int (*fn)(int) = (int (*)(int))dlsym(self, "exported_double");
  void *m = dlsym(self, "main");
  printf("dlsym(main): %s\n", m == (void *)main ? "found" : "missing");
  printf("dlsym(exported_double): %s\n", fn == exported_double ? "found" : "missing");
  if (fn) printf("exported_double(21) = %d\n", fn(21));
  return fn && m ? 0 : 1;
}
