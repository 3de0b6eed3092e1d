#include <stdlib.h>
#include <string.h>
static const double one[2] = {1.0, 1.0};
double *make(double s) {      /* heap object the caller never touches itself */
  double *m = malloc(sizeof one);
  memcpy(m, one, sizeof one);
  m[0] = s;
  return m;
}
void mul(const double *m, double *p) {  /* reads *m, updates *p */
  p[0] *= m[0];
  p[1] *= m[1];
}
