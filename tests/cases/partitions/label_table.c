/* Label addresses (GNU C's `&&label`) as offsets from one label: clang propagates the
 * differences of `blockaddress` constants into main, so main refers to execute's blocks. A
 * label's address is a place in the one body of execute the program has: main and execute
 * must sit in one partition, and execute is never copied into another. (After
 * gcc-c-torture's 920302-1.) */
#include <stdio.h>
#include <string.h>

short optab[4];
char buf[16];

int execute(const short *ip) {
  void *base = &&x;
  char *bp = buf;
  static void *const tab[] = {&&x, &&y, &&z};
  if (ip == 0) {
    for (int i = 0; i < 3; ++i)
      optab[i] = (short)((char *)tab[i] - (char *)base);
    return 0;
  }
x:
  *bp++ = 'x';
  goto *((char *)base + *ip++);
y:
  *bp++ = 'y';
  goto *((char *)base + *ip++);
z:
  *bp++ = 'z';
  *bp = 0;
  return 1;
}

int main(void) {
  short p[4];
  execute(0);
  p[0] = optab[1];
  p[1] = optab[0];
  p[2] = optab[1];
  p[3] = optab[2];
  execute(p);
  printf("%s\n", buf);
  return strcmp(buf, "xyxyz") != 0;
}
