/* Two global functions: one only called, one whose address is taken elsewhere. */
int helper(int x) { return x * 3; }
int via_ptr(int x) { return x + 7; }
