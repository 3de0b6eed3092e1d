/* Each kernel reads through y and writes through x: one pair of accesses whose alias
 * answer depends only on what the callers (in main.c) pass. */
#define KERNEL(name)                                                                    \
    __attribute__((noinline)) void name(int *x, const int *y) { *x = *y + 1; }

KERNEL(distinct_globals)
KERNEL(wrapper_blocks)
KERNEL(stack_and_global)
KERNEL(outside_and_private)
KERNEL(same_object)
KERNEL(outside_and_escaped)
KERNEL(distinct_fields)
KERNEL(array_and_later_field)
