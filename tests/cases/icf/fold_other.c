/* A third copy of add_a, in another object. */
int add_c(int x, int y) { return x * 3 + y; }
