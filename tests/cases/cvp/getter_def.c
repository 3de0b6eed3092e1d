/* Functions returning function pointers, themselves called through a pointer: the
   call of the result may reach whatever either getter returns. */
typedef int (*op_fn)(int);
typedef op_fn (*getter_fn)(void);

int r1(int x) { return x + 10; }
int r2(int x) { return x + 20; }
int r3(int x) { return x + 30; }

int mode;

op_fn get1(void) { return r1; }
op_fn get2(void) { return mode ? r2 : r3; }

getter_fn getter;

void set_getter(int k) { getter = k ? get1 : get2; }
