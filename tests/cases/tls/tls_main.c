/* Every thread sees fresh copies of initialized and zero TLS from two objects,
 * modifies them concurrently, and checks nobody else's writes leaked in. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tls.h"

#define NTHREADS 4

static __thread int main_tls = 100;
__thread int main_tls_zero;
static pthread_barrier_t barrier;
static char report[NTHREADS][128];

static int check_fresh(const char *who, char *out) {
  int bad = 0;
  if (tls_init != 42) bad |= 1;
  if (tls_zero != 0) bad |= 2;
  if (strcmp(tls_buf, "initial") != 0) bad |= 4;
  if (main_tls != 100) bad |= 8;
  if (main_tls_zero != 0) bad |= 16;
  if (((uintptr_t)tls_aligned & 63) != 0) bad |= 32;
  if (tls_aligned[0] != 0 || tls_aligned[15] != 0) bad |= 64;
  if (addr_of_tls_init() != &tls_init) bad |= 128;
  if (addr_of_tls_zero() != &tls_zero) bad |= 256;
  if (bump_local() != 8) bad |= 512;
  if (bad) sprintf(out, "%s: FAIL fresh-check mask=%d", who, bad);
  return bad;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  char *out = report[id];
  char name[16];
  sprintf(name, "thread %d", id);
  int bad = check_fresh(name, out);
  tls_init = id;
  tls_zero = id * 1000L;
  sprintf(tls_buf, "buf-%d", id);
  main_tls += id;
  main_tls_zero = -id;
  tls_aligned[3] = (char)id;
  pthread_barrier_wait(&barrier); /* everyone has written before anyone checks */
  if (!bad) {
    if (tls_init != id || tls_zero != id * 1000L || main_tls != 100 + id ||
        main_tls_zero != -id || tls_aligned[3] != id || bump_local() != 9) {
      sprintf(out, "thread %d: FAIL values leaked between threads", id);
    } else {
      sprintf(out, "thread %d: ok %s %d", id, tls_buf, main_tls);
    }
  }
  return NULL;
}

int main(void) {
  pthread_t th[NTHREADS];
  char out[128];
  if (check_fresh("main", out)) {
    puts(out);
    return 1;
  }
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  for (int i = 0; i < NTHREADS; i++)
    pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  int fails = 0;
  for (int i = 0; i < NTHREADS; i++) {
    puts(report[i]);
    fails += strstr(report[i], "FAIL") != NULL;
  }
  /* main's own copies were untouched by the threads */
  printf("main: %d %ld %s %d %d\n", tls_init, tls_zero, tls_buf, main_tls, bump_local());
  return fails;
}
