#include "exc_lib.h"
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

int lib_frames_unwound = 0;

const char *LibError::what() const noexcept { return "LibError"; }

void lib_throw(int which) {
    switch (which) {
    case 0: throw LibError(17);
    case 1: throw std::runtime_error("runtime_error from the library");
    case 2: { std::vector<int> v; (void)v.at(1); break; }
    default: throw std::string("a std::string");
    }
}

namespace {
struct Frame {
    ~Frame() {
        lib_frames_unwound++;
        std::printf("  library frame destroyed\n");
    }
};
}

int lib_call(int (*cb)(int), int v) {
    try {
        Frame f;
        return cb(v);
    } catch (const LibError &e) {
        std::printf("  library caught LibError %d from the callback\n", e.code);
        return -1;
    }
}
