// Templates and inline functions instantiated in tmpl_a.cpp, tmpl_b.cpp and
// tmpl_c.cpp: each object carries its own COMDAT copy; the output must keep
// exactly one (one symbol, one body, one static data member, one guard).
#pragma once
#include <cstddef>

template <class T> struct Registry {
    static int calls;
};
template <class T> int Registry<T>::calls = 0;

// The marker constant is in the body once: the test counts its bytes in the
// output to see that only one copy of the body was kept.
template <class T> __attribute__((noinline)) T tmpl_accumulate(const T *v, std::size_t n) {
    asm volatile("" : : "r"(0x5ae1c0de0ddba11ULL));
    T s{};
    for (std::size_t i = 0; i < n; i++)
        s += v[i];
    Registry<T>::calls++;
    return s;
}

struct Singleton {
    int constructed = 0;
    int uses = 0;
    Singleton();
};

// An inline function with a static local: one object and one guard variable.
inline Singleton &the_singleton() {
    static Singleton s;
    s.uses++;
    return s;
}

using AccFn = int (*)(const int *, std::size_t);
AccFn tmpl_a(int *out);
AccFn tmpl_b(int *out);
AccFn tmpl_c(int *out);
