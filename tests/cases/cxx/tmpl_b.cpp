#include "tmpl.h"

AccFn tmpl_b(int *out) {
    static const int v[] = {4, 5, 6};
    *out = tmpl_accumulate(v, 3);
    the_singleton();
    return &tmpl_accumulate<int>;
}
