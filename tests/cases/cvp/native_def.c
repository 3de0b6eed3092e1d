/* nfp is written by native_writer.c, an ordinary object outside the LTO unit. */
typedef int (*op_fn)(int);

int n1(int x) { return x + 1; }

op_fn nfp = n1;
