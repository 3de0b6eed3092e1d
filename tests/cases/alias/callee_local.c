/* A local only callees touch: set_params() fills p, use() reads it; main never names p
   itself (ALAC of the LLVM test-suite, reduced). */
#include <stdio.h>
typedef struct { unsigned a, b, c, den; } Params;
void set_params(Params *p, unsigned a, unsigned den);
void use(const Params *p, unsigned *out);

int main(int argc, char **argv) {
  Params p;            /* main never reads or writes p itself: only through the calls */
  unsigned r[2];       /* main reads r itself */
  set_params(&p, 10 * argc, 3);
  use(&p, &r[0]);
  set_params(&p, 20 * argc, 7);
  use(&p, &r[1]);
  printf("%u %u\n", r[0], r[1]);
  return 0;
}
