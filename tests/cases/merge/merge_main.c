#include <stdio.h>
#include <string.h>

const char *merge_a(void);
const char *merge_b(void);

int main(void) {
  printf("a: %s\nb: %s\n", merge_a(), merge_b());
  printf("same address: %s\n", merge_a() == merge_b() ? "yes" : "no");
  return strcmp(merge_a(), merge_b()) != 0;
}
