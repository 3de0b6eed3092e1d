/* Compiled without -flto: a regular object's references and definitions. */
int used_by_native(int);
int native_fn(int x) { return used_by_native(x) + 1; }
int strong_native(void) { return 5; }
