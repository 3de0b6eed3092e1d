int apply(int (*f)(int), int x);

int g2(int x) { return x - 10; }

int other(int x) { return apply(g2, x) * 2; }
