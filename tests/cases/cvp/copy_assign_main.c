/* to.fn starts as w2; assign() copies from.fn (w1) into it. */
#include <stdio.h>
#include "copy.h"

int main(void) {
    assign(&to, &from);
    printf("to.fn(10) = %d\n", to.fn(10)); /* site:assigned */
    return 0;
}
