/* A call through a table another partition's code builds: the callees are named only by
   called-value propagation, never by this file's code. */
#include <stdio.h>

struct step_table {
    int (*step)(int);
};

const struct step_table *choose_steps(int seed);

/* Enough code of its own that the partitioner gives it a partition. */
static int churn(int x, int rounds) {
    for (int i = 0; i < rounds; i++) {
        switch ((x ^ i) & 7) {
        case 0: x = x * 3 + 1; break;
        case 1: x = x / 2 + 7; break;
        case 2: x = x ^ (x << 3); break;
        case 3: x = x - 11; break;
        case 4: x = x * 5 - 3; break;
        case 5: x = (x >> 2) + i; break;
        case 6: x = x + i * i; break;
        default: x = ~x; break;
        }
        x &= 0xffff;
    }
    return x;
}

int main(int argc, char **argv) {
    (void)argv;
    const struct step_table *t = choose_steps(argc);
    int v = t->step(churn(argc, 5) & 0xff); /* site:across */
    printf("%d\n", v);
    return 0;
}
