#include <stdio.h>

typedef int (*op_fn)(int);
extern op_fn slot_a, slot_b;
void swap_bytes(void *a, void *b, unsigned long size);

int main(void) {
    swap_bytes(&slot_a, &slot_b, sizeof(op_fn));
    int a = slot_a(10); /* site:swapped_a */
    int b = slot_b(10); /* site:swapped_b */
    printf("slot_a(10) = %d, slot_b(10) = %d\n", a, b);
    return 0;
}
