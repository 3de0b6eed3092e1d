/* The LTO example of LLVM's documentation, split across two files: main
   calls probably_inlined from tu2.c; nothing calls unused. */
#include <stdio.h>

int probably_inlined(int);

int main(void) {
    printf("probably_inlined(3) = %d\n", probably_inlined(3));
    return 0;
}
