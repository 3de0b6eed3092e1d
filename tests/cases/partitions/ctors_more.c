#include <stdio.h>
#include "big.h"

__attribute__((constructor(200))) static void middle(void) { puts("ctor 200"); }
__attribute__((destructor(150))) static void bye_first(void) { puts("dtor 150"); }

__attribute__((noinline)) unsigned filler_b(unsigned x) {
  S400(5)
  return x;
}

unsigned filler_a(unsigned x);

int main(int argc, char **argv) {
  (void)argv;
  printf("main %u\n", filler_b(filler_a((unsigned)argc)) % 1000);
  return 0;
}
