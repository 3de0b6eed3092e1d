#include <dlfcn.h>
#include <stdio.h>

extern int lib_counter;
extern __thread int lib_tls;
int lib_add(int a, int b);
int lib_twice(int x);
int lib_call_exe(int x);
int lib_read_counter(void);
int lib_read_tls(void);
int (*lib_addr_of_add(void))(int, int);
const char *lib_name(void);

int exe_callback(int x) { return x * 1000; }

int main(void) {
  int fails = 0;
  printf("%s\n", lib_name());
  printf("lib_add(2,3)=%d lib_twice(21)=%d\n", lib_add(2, 3), lib_twice(21));
  printf("lib_call_exe(4)=%d\n", lib_call_exe(4));
  printf("lib_counter=%d\n", lib_counter);
  lib_counter = 77; /* the library must see the executable's write */
  printf("lib_read_counter()=%d\n", lib_read_counter());
  lib_tls += 1;
  printf("lib_tls=%d lib_read_tls()=%d\n", lib_tls, lib_read_tls());
  fails += lib_addr_of_add() != lib_add;
  fails += dlsym(RTLD_DEFAULT, "lib_twice") != (void *)lib_twice;
  fails += dlsym(RTLD_DEFAULT, "lib_hidden") != NULL;
  printf("function addresses agree: %s\n", fails ? "FAIL" : "ok");
  return fails + (lib_read_counter() != 77) + (lib_read_tls() != 6);
}
