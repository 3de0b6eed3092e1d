/* CVP through a global variable: fp is written here, called in global_main.c. */
int f1(int x) { return x + 1; }
int f2(int x) { return x * 2; }

int (*fp)(int);

void choose(int which) { fp = which ? f1 : f2; }
