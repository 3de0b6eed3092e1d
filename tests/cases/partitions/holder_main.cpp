// Uses the explicit instantiation: destroying a local calls `D1`.
#include "holder.h"

extern template struct Holder<int>;

Holder<int> *make_holder(int v);
Holder<int> *make_sub(int v);

int main() {
    Holder<int> *a = make_holder(3);
    Holder<int> *b = make_sub(4);
    int sum = a->get() + b->get();
    delete a;
    delete b;
    {
        Holder<int> c(5);
        sum += c.get();
    }
    std::printf("sum %d\n", sum);
    return 0;
}
