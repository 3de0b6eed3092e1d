// Linked first: its `D2` prevails.
#include "holder.h"

Holder<int> *make_holder(int v) { return new Holder<int>(v); }

struct Sub : Holder<int> {
    explicit Sub(int v) : Holder<int>(v) {}
    ~Sub() override { std::printf("~Sub\n"); }
};

Holder<int> *make_sub(int v) { return new Sub(v); }
