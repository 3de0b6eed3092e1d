#include "tmpl.h"
#include <cstdio>

static int singleton_ctors = 0;
Singleton::Singleton() { constructed = ++singleton_ctors; }

int main() {
    int a, b, c;
    AccFn fa = tmpl_a(&a), fb = tmpl_b(&b), fc = tmpl_c(&c);
    std::printf("a: %d b: %d c: %d\n", a, b, c);
    std::printf("same address: %s\n", fa == fb && fb == fc ? "yes" : "no");
    std::printf("Registry<int>::calls=%d\n", Registry<int>::calls);
    Singleton &s = the_singleton();
    std::printf("singleton constructed %d time(s), uses=%d\n", singleton_ctors, s.uses);
}
