// For a non-PIE executable: it takes &lib_fn (a canonical PLT entry in the
// executable) and uses lib_data directly (a copy relocation); the library
// must see the same address and the executable's writes.
int lib_data = 10;

int lib_fn(int x) { return x * 3; }

void *lib_fn_addr(void) { return (void *)&lib_fn; }
int *lib_data_addr(void) { return &lib_data; }
int lib_read_data(void) { return lib_data; }
int lib_call_through(int (*fn)(int), int x) { return fn == &lib_fn ? fn(x) : -1; }
