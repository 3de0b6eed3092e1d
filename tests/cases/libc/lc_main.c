/* varargs, setjmp/longjmp and qsort/bsearch with callbacks in another object. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

extern jmp_buf escape;
int sum_ints(int n, ...);
double avg_doubles(int n, ...);
int format_into(char *buf, size_t len, const char *fmt, ...);
void dive(int depth);
int cmp_int(const void *a, const void *b);
int cmp_str(const void *a, const void *b);

int main(void) {
  char buf[64];
  printf("sum_ints: %d\n", sum_ints(5, 1, 2, 3, 4, 5));
  printf("avg_doubles: %.3f\n", avg_doubles(3, 1.5, 2.5, 4.0));
  format_into(buf, sizeof buf, "%s-%05d-%x-%.2f", "fmt", 42, 255, 3.14159);
  printf("format_into: %s\n", buf);

  volatile int jumps = 0;
  int r = setjmp(escape);
  if (r == 0) {
    dive(50);
    puts("FAIL: longjmp did not happen");
    return 1;
  }
  jumps++;
  printf("longjmp returned %d after %d jump(s)\n", r, jumps);

  int nums[] = {5, -3, 99, 0, 42, 7, -100, 8};
  size_t n = sizeof nums / sizeof nums[0];
  qsort(nums, n, sizeof nums[0], cmp_int);
  printf("sorted:");
  for (size_t i = 0; i < n; i++) printf(" %d", nums[i]);
  printf("\n");
  const char *words[] = {"pear", "apple", "fig", "banana", "cherry"};
  qsort(words, 5, sizeof words[0], cmp_str);
  printf("words: %s %s %s %s %s\n", words[0], words[1], words[2], words[3], words[4]);
  int key = 42;
  int *hit = bsearch(&key, nums, n, sizeof nums[0], cmp_int);
  printf("bsearch 42: index %d\n", hit ? (int)(hit - nums) : -1);
  return 0;
}
