/* A generic swap, as a hand-written sort uses on elements of any type: byte by
   byte (clang vectorizes the loop into <16 x i8> loads and stores, with an i8
   loop for the rest). */
__attribute__((noinline)) void swap_bytes(void *a, void *b, unsigned long size) {
    unsigned char *x = a, *y = b;
    for (unsigned long i = 0; i < size; i++) {
        unsigned char t = x[i];
        x[i] = y[i];
        y[i] = t;
    }
}
