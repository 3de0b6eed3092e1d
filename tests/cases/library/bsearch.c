/* bsearch returns a pointer into the array (C11 7.22.5.1): a store through it changes
   the array. */
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(int argc, char **argv) {
  (void)argv;
  int a[5] = {1, 3, 5, 7, 9};
  int key = 5 + (argc - 1);
  int *p = bsearch(&key, a, 5, sizeof a[0], cmp);
  int before = a[2];
  if (p) *p = 50;
  printf("%d %d\n", before, a[2]);
  return 0;
}
