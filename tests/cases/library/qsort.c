/* qsort calls the comparator on pointers to the array's elements and permutes them: C11
   7.22.5.2. The comparator reads through the elements' pointers. */
#include <stdio.h>
#include <stdlib.h>
struct item { int *key; int tag; };
static int cmp(const void *a, const void *b) {
  const struct item *x = a, *y = b;
  return *x->key - *y->key;
}
int main(void) {
  int keys[4] = {30, 10, 40, 20};
  struct item items[4];
  for (int i = 0; i < 4; i++) { items[i].key = &keys[i]; items[i].tag = i; }
  keys[2] = 5;
  qsort(items, 4, sizeof items[0], cmp);
  printf("%d %d %d %d\n", items[0].tag, items[1].tag, items[2].tag, items[3].tag);
  return 0;
}
