/* CVP through a constant table of four handlers, indexed in table_main.c. */
typedef int (*op_fn)(int);

int t_inc(int x) { return x + 1; }
int t_dec(int x) { return x - 1; }
int t_dbl(int x) { return x * 2; }
int t_neg(int x) { return -x; }

const op_fn table[4] = {t_inc, t_dec, t_dbl, t_neg};
