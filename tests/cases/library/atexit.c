/* A callback registered with atexit runs at exit and sees what main wrote after
   registering it: C11 7.22.4.2. */
#include <stdio.h>
#include <stdlib.h>
static int counter;
static int *shared_ptr;
static void report(void) { printf("%d %d\n", counter, *shared_ptr); }
int main(void) {
  static int value = 1;
  shared_ptr = &value;
  atexit(report);
  counter = 41;
  value = 2;
  counter++;
  return 0;
}
