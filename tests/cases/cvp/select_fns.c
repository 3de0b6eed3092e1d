/* The two functions a select in select_main.c chooses between. */
int sel_a(int x) { return x + 1000; }
int sel_b(int x) { return x - 1000; }
