static int sq(int a) { return a * a; }
int ext(int);
int café(int x) { return x + 1; }
float __attribute__((noinline)) fsum(float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
int __attribute__((noinline)) it(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) + ext(i); return s; }
int ext(int x) { return x ^ 3; }
int main(int argc, char **argv) { float f[4] = {1, 2, 3, 4}; (void)argv; return (it(argc * 1000) & 1) + café(argc) + (int)fsum(f, argc); }
