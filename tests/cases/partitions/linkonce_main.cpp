// The users, linked last: their own copies give way to linkonce_keeper.cpp's.
#include "linkonce.h"
#include <cstdio>

int first(int x);

int may_throw(int x) {
    if (x < 0)
        throw Oops{x};
    return x * 2;
}

__attribute__((noinline)) Shape *make(int side) { return new Square(side); }

int main(int argc, char **argv) {
    (void)argv;
    int total = first(argc);
    try {
        may_throw(-argc);
    } catch (const Oops &e) {
        std::printf("caught %d\n", e.code);
        total += e.code;
    }
    Shape *s = make(argc + 2);
    std::printf("area %d\n", s->area());
    delete s;
    std::printf("checked %d total %d\n", checked(argc), total);
    return 0;
}
