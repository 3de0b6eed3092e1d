/* Negative control: external definitions nothing refers to. LTO drops the
   function and the variable. */
#include <stdio.h>

int never_called(int x) {
    return x * 3 + 1;
}

int never_read[16] = {1, 2, 3};

int main(void) {
    puts("control");
    return 0;
}
