// A heap-buffer-overflow for AddressSanitizer: read_past_end reads one int
// past an 8-int malloc'd block.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int read_past_end(const int *p, int n) { return p[n]; }

int main(int argc, char **argv) {
    (void)argv;
    int *p = malloc(8 * sizeof(int));
    for (int i = 0; i < 8; i++)
        p[i] = i;
    printf("before the overflow\n");
    fflush(stdout);
    int v = read_past_end(p, 7 + argc);
    printf("not reached: %d\n", v);
    free(p);
    return 0;
}
