#include <stdio.h>

typedef int (*op_fn)(int);
op_fn get_a(void);
op_fn get_b(void);

op_fn chosen;

__attribute__((noinline)) void pick(int k) { chosen = k ? get_a() : get_b(); }

__attribute__((noinline)) int call_chosen(int x) {
    return chosen(x); /* site:chosen */
}

int main(int argc, char **argv) {
    (void)argv;
    pick(argc > 1);
    printf("%d\n", call_chosen(1));
    pick(argc < 2);
    printf("%d\n", call_chosen(1));
    return 0;
}
