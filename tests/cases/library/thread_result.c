/* What a start routine returns reaches pthread_join's caller: the object it points to
   is written through the joined pointer, then read directly. */
#include <pthread.h>
#include <stdio.h>
static long cell[2];
static void *work(void *arg) { cell[0] = (long)arg; return &cell[0]; }
int main(void) {
  pthread_t t;
  void *v;
  pthread_create(&t, 0, work, (void *)5);
  pthread_join(t, &v);
  long before = cell[0];
  *(long *)v = before + 10;
  printf("%ld %ld\n", before, cell[0]);
  return 0;
}
