/* The tables address_main.c and address_def.c share. */
#include <stdint.h>

struct ops {
    int (*step)(int);
    long span;
};

struct named {
    const char *name;
    int (*fn)(int);
};

struct ops *make_ops(void);
const struct named *pick(int i);
int within(const void *p, const void *start, const void *end);
