/* Calls through a heap table and a stack table filled in another unit. */
#include <stdio.h>
#include <stdlib.h>
#include "memory_ops.h"

int main(int argc, char **argv) {
    (void)argv;
    struct mem_ops *h = make_heap_ops();
    struct mem_ops s;
    fill_ops(&s);
    int a = h->apply(argc + 20); /* site:heap */
    int b = s.combine(a, 1); /* site:stack */
    int c = h->combine(b, 3); /* site:heap_other */
    printf("%d %d %d\n", a, b, c);
    free(h);
    return 0;
}
