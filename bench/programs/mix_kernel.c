/* out[i] = sum of ten inputs: without knowing that `out` points to none of the inputs,
 * LLVM's vectorizer needs a run-time overlap check per input and gives up past eight. */
__attribute__((noinline)) void mix(float *out, const float *a, const float *b, const float *c,
                                   const float *d, const float *e, const float *f,
                                   const float *g, const float *h, const float *i,
                                   const float *j, int n) {
    for (int k = 0; k < n; k++)
        out[k] = a[k] + b[k] + c[k] + d[k] + e[k] + f[k] + g[k] + h[k] + i[k] + j[k];
}
