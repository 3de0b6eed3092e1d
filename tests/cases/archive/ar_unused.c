#include <stdio.h>

int unused_member_fn(void) { return 7; }
__attribute__((constructor)) static void unused_member_ctor(void) { puts("FAIL: unused archive member was linked"); }
