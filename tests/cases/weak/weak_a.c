/* Weak definitions (overridden by weak_b.c) and tentative (common) definitions. */
int common_counter;   /* also tentatively defined in weak_b.c: one variable */
char common_buf[16];  /* weak_b.c has a bigger one: the largest wins */

__attribute__((weak)) const char *who(void) { return "weak who"; }
__attribute__((weak)) int weak_value = 1;
__attribute__((weak)) const char *weak_only(void) { return "weak only"; }

void a_bump(void) { common_counter += 1; common_buf[0] = 'a'; }
