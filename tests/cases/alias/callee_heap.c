/* Memory only the callees touch: make() allocates and fills a block, mul() reads it; main
   names only p. Both calls touch the block (McCat 08-main of the LLVM test-suite, reduced). */
#include <stdio.h>
#include <stdlib.h>
double *make(double s);
void mul(const double *m, double *p);
int main(int argc, char **argv) {
  double p[2] = {1, 2};     /* the only object main accesses itself */
  double *m = make(argc + 2.0);
  mul(m, p);
  printf("%g %g\n", p[0], p[1]);
  free(m);
  return 0;
}
