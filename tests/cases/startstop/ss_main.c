/* Walks the rld_items section between __start_rld_items and __stop_rld_items. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "item.h"

ITEM(elder, 50000);

static int by_name(const void *a, const void *b) {
  return strcmp((*(struct item *const *)a)->name, (*(struct item *const *)b)->name);
}

int main(void) {
  struct item *sorted[16];
  long n = __stop_rld_items - __start_rld_items, sum = 0;
  printf("items: %ld\n", n);
  if (n < 0 || n > 16) return 1;
  for (long i = 0; i < n; i++) {
    sorted[i] = &__start_rld_items[i];
    sum += __start_rld_items[i].value;
  }
  qsort(sorted, n, sizeof sorted[0], by_name);
  for (long i = 0; i < n; i++) printf("%s=%ld ", sorted[i]->name, sorted[i]->value);
  printf("\nsum: %ld\n", sum);
  return n == 5 && sum == 54321 ? 0 : 1;
}
