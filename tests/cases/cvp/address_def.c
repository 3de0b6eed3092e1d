/* A heap table, a range check on numbers, and a table of names reached through an
   interior pointer in an initializer. */
#include <stdlib.h>
#include "address_types.h"

static int bump(int x) { return x + 2; }
static int twice(int x) { return 2 * x; }
static int halve(int x) { return x / 2; }

static const struct named table[] = {{"twice", twice}, {"halve", halve}};
static const struct named *const second = &table[1];

struct ops *make_ops(void) {
    struct ops *o = malloc(sizeof *o);
    o->step = bump;
    o->span = 0;
    return o;
}

int within(const void *p, const void *start, const void *end) {
    return (uintptr_t)p >= (uintptr_t)start && (uintptr_t)p < (uintptr_t)end;
}

const struct named *pick(int i) { return i > 1 ? &table[0] : second; }
