/* CVP through the fields of a global struct: `first` (offset 0) and `second`
   (offset 8) hold different functions; each call site must get its own field's set. */
#include "struct_ops.h"

int a0(int x) { return x + 100; }
int a1(int x) { return x + 200; }
int b0(int x) { return x * 3; }
int b1(int x) { return x * 5; }
int b2(int x) { return x * 7; }

struct ops the_ops = {a0, b0};

void setup(int mode) {
    if (mode & 1)
        the_ops.first = a1;
    if (mode & 2)
        the_ops.second = (mode & 4) ? b1 : b2;
}
