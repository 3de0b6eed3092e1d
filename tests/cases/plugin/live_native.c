/* Compiled without -flto: its reference keeps used_by_native alive through LTO. */
int used_by_native(int);
int native_call(int x) { return used_by_native(x) * 10; }
