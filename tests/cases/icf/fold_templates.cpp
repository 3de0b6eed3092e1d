// Identical template instantiations and virtual functions.
#include <cstdio>
#include <vector>
#include <string>
#include <map>
#include <typeinfo>
template <typename T> T sum(const std::vector<T> &v) { T s = 0; for (auto x : v) s += x; return s; }
struct Base { virtual int f() const = 0; virtual ~Base() {} };
struct A : Base { int f() const override { return 1; } };
struct B : Base { int f() const override { return 1; } };
int main() {
    std::vector<int> a{1, 2, 3}; std::vector<unsigned> b{4, 5, 6};
    std::map<std::string, int> m{{"x", 1}, {"y", 2}};
    A x; B y; const Base *p[] = {&x, &y};
    int t = 0; for (auto *q : p) t += q->f();
    std::printf("%d %u %d %zu %d\n", sum(a), sum(b), t, m.size(), (int)(typeid(x) == typeid(y)));
    return 0;
}
