#include <stdio.h>

int soname_lib_value(void);

int main(void) {
    printf("found the library through the runpath: %d\n", soname_lib_value());
    return 0;
}
