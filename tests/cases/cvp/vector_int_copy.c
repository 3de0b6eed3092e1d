/* Two uintptr_t field copies, merged by the SLP vectorizer into one <2 x i64>
   load and store. */
#include <stdint.h>

struct words {
    uintptr_t a, b;
};

__attribute__((noinline)) void copy_words(struct words *dst, const struct words *src) {
    dst->a = src->a;
    dst->b = src->b;
}
