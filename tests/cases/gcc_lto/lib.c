__attribute__((noinline)) int ir_only(int x) { return x * 10; }
__attribute__((noinline)) int used_by_native(int x) { return x * 100; }
__attribute__((weak)) int weak_both(void) { return 2; }
int exported_var = 7;
static int local_counter;
int bump(void) { return ++local_counter; } /* unused: IRONLY, dropped by LTO */
