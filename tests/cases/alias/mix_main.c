#include <stdio.h>
#include <stdlib.h>

void mix(float *out, const float *a, const float *b, const float *c, const float *d,
         const float *e, const float *f, const float *g, const float *h, const float *i,
         const float *j, int n);

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 20000;
    float *in[10];
    for (int s = 0; s < 10; s++) {
        in[s] = malloc(n * sizeof(float));
        for (int k = 0; k < n; k++)
            in[s][k] = (float)((k * (s + 3)) % 101) / 101.0f;
    }
    float *out = malloc(n * sizeof(float));
    double total = 0;
    for (int r = 0; r < reps; r++) {
        mix(out, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], n);
        total += out[r % n];
    }
    printf("%.4f %.4f\n", total, out[n / 3]);
    return 0;
}
