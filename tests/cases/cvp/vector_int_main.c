/* dst_pair starts as {w2, w2}; copy_words() copies src_pair ({w1, w3}) into it as
   two integers. */
#include <stdio.h>
#include "copy.h"

struct words;
void copy_words(struct words *dst, const struct words *src);

int main(void) {
    copy_words((struct words *)&dst_pair, (const struct words *)&src_pair);
    int a = dst_pair.first(10);  /* site:words_first */
    int b = dst_pair.second(10); /* site:words_second */
    printf("first(10) = %d, second(10) = %d\n", a, b);
    return 0;
}
