#include <stdio.h>

extern int common_counter;
extern char common_buf[64];
const char *who(void);
const char *weak_only(void);
extern int weak_value;
void a_bump(void);
void b_bump(void);

/* Never defined anywhere: must resolve to NULL. */
extern int undefined_weak_fn(void) __attribute__((weak));
extern int undefined_weak_var __attribute__((weak));

int main(void) {
  a_bump();
  b_bump();
  a_bump();
  printf("who: %s\n", who());
  printf("weak_only: %s\n", weak_only());
  printf("weak_value: %d\n", weak_value);
  printf("common_counter: %d\n", common_counter);
  printf("common_buf: %c %c\n", common_buf[0], common_buf[63]);
  printf("undefined weak fn is NULL: %s\n", undefined_weak_fn == NULL ? "yes" : "no");
  printf("undefined weak var is NULL: %s\n", &undefined_weak_var == NULL ? "yes" : "no");
  if (undefined_weak_fn) printf("undefined weak fn returned %d\n", undefined_weak_fn());
  return common_counter == 12 && weak_value == 2 && !undefined_weak_fn ? 0 : 1;
}
