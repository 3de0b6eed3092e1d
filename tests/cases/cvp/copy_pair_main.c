/* dst_pair starts as {w2, w2}; copy_pair() copies src_pair ({w1, w3}) into it. */
#include <stdio.h>
#include "copy.h"

int main(void) {
    copy_pair(&dst_pair, &src_pair);
    int a = dst_pair.first(10);  /* site:pair_first */
    int b = dst_pair.second(10); /* site:pair_second */
    printf("first(10) = %d, second(10) = %d\n", a, b);
    return 0;
}
