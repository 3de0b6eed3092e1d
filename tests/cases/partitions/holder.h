// A class template whose destructor is defined out of the class. An explicit
// instantiation defines its members weak_odr, the complete-object destructor `D1` as an
// alias of the base-object one `D2` in one COMDAT (`D5`); an implicit instantiation
// defines `D2` linkonce_odr in a COMDAT of its own, and no `D1` (calls go to `D2`).
#include <cstdio>

template <class T> struct Holder {
    T v;
    explicit Holder(T x) : v(x) {}
    virtual ~Holder();
    virtual T get() const { return v; }
};

template <class T> Holder<T>::~Holder() { std::printf("~Holder %d\n", static_cast<int>(v)); }
