/* An indirect call whose every target writes only through its argument and keeps no copy
 * of it: the call carries what the targets say (memory(argmem: write), captures(none)),
 * so `x`, whose address only that call sees, stays unknown to `opaque` (another file,
 * outside LTO) and need not be read again after it. Three targets: more than rld
 * promotes to direct calls, so the call stays indirect. */
#include <stdio.h>

void opaque(void);

static void set1(int *p) { *p = 1; }
static void set2(int *p) { *p = 2; }
static void set3(int *p) { *p = 3; }

void (*setters[3])(int *) = {set1, set2, set3};

__attribute__((noinline)) int twice(int which) {
    int x;
    setters[which](&x);
    int a = x;
    opaque();
    return a + x;
}

int main(int argc, char **argv) {
    (void)argv;
    printf("%d %d %d\n", twice(argc % 3), twice((argc + 1) % 3), twice((argc + 2) % 3));
    return 0;
}
