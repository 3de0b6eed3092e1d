/* pfp may hold puts, a function outside the LTO unit (in libc), or my_puts. */
#include <stdio.h>

int my_puts(const char *s) { return printf("[%s]\n", s); }

int (*pfp)(const char *);

void set_pfp(int k) { pfp = k ? puts : my_puts; }
