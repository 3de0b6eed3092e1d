#include "tmpl.h"

AccFn tmpl_a(int *out) {
    static const int v[] = {1, 2, 3};
    *out = tmpl_accumulate(v, 3);
    the_singleton();
    return &tmpl_accumulate<int>;
}
