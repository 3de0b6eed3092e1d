/* Calls through tables whose addresses are also turned into numbers: compared, aligned,
   subtracted. Numbers that never become pointers again let nothing escape. */
#include <stdio.h>
#include <stdlib.h>
#include "address_types.h"

#ifdef KEEP_NUMBER
/* A number kept in memory may become a pointer again anywhere: the table escapes. */
uintptr_t kept;
#endif

int main(int argc, char **argv) {
    (void)argv;
    struct ops *o = make_ops();
    char *buf = (char *)o;
    if (((uintptr_t)o & 7) != 0 || !within(buf + 1, buf, buf + sizeof *o))
        return 1;
    o->span = (long)((char *)&o->span - buf);
#ifdef KEEP_NUMBER
    kept = (uintptr_t)o;
#endif
    int a = o->step(argc + 40); /* site:aligned */
    const struct named *n = pick(argc);
    int b = n->fn(a); /* site:interior */
    printf("%d %ld %s %d\n", a, o->span, n->name, b);
    free(o);
    return 0;
}
