#include <stdio.h>
#include "struct_ops.h"

int main(int argc, char **argv) {
    (void)argv;
    static const int modes[] = {0, 1, 2, 6};
    for (int k = 0; k < 4; k++) {
        setup(modes[k] + (argc > 1) * 8);
        int x = the_ops.first(k);  /* site:first */
        int y = the_ops.second(k); /* site:second */
        printf("mode %d: first %d second %d\n", modes[k], x, y);
    }
    return 0;
}
