#include "exc.h"
#include <cstdio>
#include <vector>

AppError::AppError(const std::string &msg, int c) : std::runtime_error(msg), code(c) {}
AppError::~AppError() {}

void throw_app(int code) { throw AppError("app error " + std::to_string(code), code); }
void throw_parse(const char *what) { throw ParseError(what); }
void throw_int(int v) { throw v; }

void throw_std(int which) {
    std::vector<int> v(3);
    switch (which) {
    case 0: (void)v.at(7); break;             // std::out_of_range from libstdc++
    case 1: throw std::invalid_argument("bad argument");
    default: throw std::logic_error("logic");
    }
}

namespace {
struct Guard {
    int level;
    explicit Guard(int l) : level(l) {}
    ~Guard() { std::printf("  unwound level %d\n", level); }
};
}

void through_frames(int depth, void (*fn)()) {
    Guard g(depth);
    if (depth == 0)
        fn();
    else
        through_frames(depth - 1, fn);
    std::printf("  not reached when throwing (level %d)\n", depth);
}

void wrap_and_rethrow(void (*fn)()) {
    try {
        fn();
    } catch (const AppError &e) {
        throw std::runtime_error(std::string("wrapped <") + e.what() + ">");
    }
}
