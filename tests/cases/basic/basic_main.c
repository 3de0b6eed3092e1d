/* A small program exercising the usual relocations; it checks itself and
 * prints what it computed. Used to test every output kind and flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char *const colors[4];
extern const char *const *color_table;
extern int counters[4];
extern int *counter_ptrs[4];
extern __thread int util_tls;
extern int ctor_value;
int next_id(void);
const char *describe(int n);
double scaled(int x);
int bump_tls(void);

static const char greeting[] = "hello from basic";
static int (*const cmp_fn)(const char *, const char *) = strcmp;

int main(int argc, char **argv) {
  int fails = 0;
  printf("%s, argc=%d\n", greeting, argc);
  for (int i = 0; i < 4; i++) printf("%s=%d ", color_table[i], *counter_ptrs[i]);
  printf("\n");
  for (int i = 0; i < 8; i++) printf("%s ", describe(i));
  printf("\n");
  int id1 = next_id(), id2 = next_id(), id3 = next_id();
  printf("ids: %d %d %d\n", id1, id2, id3);
  printf("scaled(3)=%.2f ctor_value=%d\n", scaled(3), ctor_value);
  int t0 = util_tls, t1 = bump_tls(), t2 = bump_tls();
  printf("tls: %d %d %d\n", t0, t1, t2);
  char *dup = strdup(colors[2]);
  fails += cmp_fn(dup, "blue") != 0;
  free(dup);
  fails += ctor_value != 1234;
  fails += color_table != colors;
  printf("%s\n", fails ? "FAIL" : "basic ok");
  return fails;
}
