#include <stdio.h>

int exported_fn(int x);
int hidden_fn(int x);   // hidden in the library: this reference cannot resolve

int main(int argc, char **argv) {
    (void)argv;
    printf("%d\n", argc > 5 ? hidden_fn(argc) : exported_fn(1));
    return 0;
}
