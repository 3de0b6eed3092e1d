/* CVP through a return value: pick returns h1 or h2. */
typedef int (*op_fn)(int);

int h1(int x) { return x + 11; }
int h2(int x) { return x * 13; }

__attribute__((noinline)) op_fn pick(int k) { return k ? h1 : h2; }
