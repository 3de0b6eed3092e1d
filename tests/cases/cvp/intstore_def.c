/* slot starts as u2; intstore_main.c stashes u1 into it through an integer store. */
typedef int (*op_fn)(int);

int u1(int x) { return x + 1; }
int u2(int x) { return x + 2; }

op_fn slot = u2;
