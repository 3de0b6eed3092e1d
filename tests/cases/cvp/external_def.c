/* Functions of the executable: the initial contents of the callback table (which
   libexternal.so overwrites) and a control pointer CVP can resolve. */
typedef int (*op_fn)(int);

int ctl_a(int x) { return x + 7; }
int ctl_b(int x) { return x - 7; }

op_fn ctl_fp;

void set_control(int which) { ctl_fp = which ? ctl_a : ctl_b; }
