/* Linked with the remark test program: a function LTO drops (a deadfunction remark). */
int never_called(int x) { return x * 7; }
