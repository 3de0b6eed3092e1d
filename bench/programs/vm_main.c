#include <stdio.h>
#include <stdlib.h>
#include "vm.h"

struct vm the_vm;

static long run(const unsigned char *code, int n) {
  for (int i = 0; i < n; i++) {
    the_vm.acc = the_vm.step(the_vm.acc, code[i], i);
    the_vm.steps++;
  }
  return the_vm.acc;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int checked = argc > 2;
  unsigned char *code = malloc(n);
  for (int i = 0; i < n; i++)
    code[i] = (unsigned char)(i * 7 + 3);
  the_vm.step = checked ? step_checked : step_fast;
  long checksum = 0;
  for (int k = 0; k < 2000; k++)
    checksum += run(code, n);
  printf("%ld %ld\n", checksum, the_vm.steps);
  free(code);
  return 0;
}
