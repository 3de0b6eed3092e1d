/* getline allocates a buffer and stores it through its first argument; the stream is
   memory the program gave fmemopen. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  char text[] = "first line\nsecond\n";
  FILE *f = fmemopen(text, strlen(text), "r");
  char *line = NULL;
  size_t cap = 0;
  long total = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) { line[0] = 'L'; total += n + line[0]; }
  printf("%ld %s", total, line);
  free(line);
  fclose(f);
  return 0;
}
