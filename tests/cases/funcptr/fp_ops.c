#include "funcptr.h"

int op_add(int a, int b) { return a + b; }
int op_sub(int a, int b) { return a - b; }
int op_mul(int a, int b) { return a * b; }
static int op_secret(int a, int b) { return a * 100 + b; }
op_fn get_secret(void) { return op_secret; }
