#include <stdio.h>

int gc_used_function(int x);
extern int gc_ctor_seen;

int main(void) {
  printf("used: %d\n", gc_used_function(1));
  printf("ctor ran: %s (%d)\n", gc_ctor_seen == 31 ? "yes" : "no", gc_ctor_seen);
  return gc_ctor_seen == 31 ? 0 : 1;
}
