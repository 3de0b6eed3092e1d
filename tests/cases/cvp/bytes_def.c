/* slot_a starts as w1 and slot_b as w3; bytes_main.c swaps them byte by byte. */
typedef int (*op_fn)(int);

int w1(int x) { return x + 1; }
int w3(int x) { return x + 3; }

op_fn slot_a = w1;
op_fn slot_b = w3;
