// Linked first: the module the others are merged into. It uses nothing of linkonce.h.
int first(int x) { return x * 3 + 1; }
