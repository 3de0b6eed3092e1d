#include <stdio.h>

extern int (*esc_fp)(int);
void sink(void *slot, int overwrite);

int main(int argc, char **argv) {
    (void)argv;
    sink(&esc_fp, argc < 2);
    printf("esc_fp(4) = %d\n", esc_fp(4)); /* site:escaped */
    return 0;
}
