/* pthread_join stores the thread's result through its second argument: LLVM's
   declaration says nothing about it, so the analysis must assume it may write there. */
#include <pthread.h>
#include <stdio.h>
static void *work(void *arg) { return (void *)((long)arg * 10 + 7); }
int main(void) {
  pthread_t t[4];
  long r[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < 4; i++) { void *v; pthread_join(t[i], &v); r[i] = (long)v; }
  printf("%ld %ld %ld %ld\n", r[0], r[1], r[2], r[3]);
  return 0;
}
