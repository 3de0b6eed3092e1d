/* A hidden function only native code calls (native_caller.c), beside main. */
#include <stdio.h>

unsigned big_x(unsigned x);
unsigned call_shown(unsigned v);

__attribute__((visibility("hidden"), noinline)) unsigned shown(unsigned v) {
  return v * 7u + 1u;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%u %u\n", call_shown((unsigned)argc), big_x((unsigned)argc));
  return 0;
}
