#include "tmpl.h"

AccFn tmpl_c(int *out) {
    static const int v[] = {7, 8, 9};
    *out = tmpl_accumulate(v, 3);
    the_singleton();
    return &tmpl_accumulate<int>;
}
