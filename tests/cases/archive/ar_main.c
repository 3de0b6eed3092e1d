/* Pulls ar_alpha.o out of the archive; alpha needs beta, beta needs third (an
 * earlier member). ar_unused.o is never needed: its constructor must not run. */
#include <stdio.h>

int alpha(int x);

int main(void) {
  printf("alpha(5) = %d\n", alpha(5));
  return alpha(5) == 5 * 2 + 3 + 100 ? 0 : 1;
}
