#include "exc_lib.h"
#include <cstdio>
#include <stdexcept>
#include <string>

struct ExeError {
    int v;
};

static int cb_ok(int v) { return v * 2; }
static int cb_lib_error(int v) { throw LibError(v); }
static int cb_exe_error(int v) { throw ExeError{v}; }

int main() {
    for (int which = 0; which < 4; which++) {
        try {
            lib_throw(which);
        } catch (const LibError &e) {
            std::printf("caught %s code %d\n", e.what(), e.code);
        } catch (const std::out_of_range &) {
            std::printf("caught out_of_range from the library\n");
        } catch (const std::exception &e) {
            std::printf("caught std::exception: %s\n", e.what());
        } catch (const std::string &s) {
            std::printf("caught %s\n", s.c_str());
        }
    }
    std::printf("lib_call(cb_ok, 21) = %d\n", lib_call(cb_ok, 21));
    std::printf("lib_call(cb_lib_error, 5) = %d\n", lib_call(cb_lib_error, 5));
    try {
        lib_call(cb_exe_error, 9);
        std::printf("not reached\n");
    } catch (const ExeError &e) {
        std::printf("caught ExeError %d through the library\n", e.v);
    }
    std::printf("library frames unwound: %d\n", lib_frames_unwound);
}
