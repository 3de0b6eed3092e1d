/* esc_fp starts as esc_a, but its address escapes to libescape.so in escape_main.c,
   which overwrites it: the call through it must stay unresolved. */
int esc_a(int x) { return x + 1; }

int (*esc_fp)(int) = esc_a;
