// The interface of libcxxexc.so (exc_lib.cpp): exceptions thrown inside the
// library are caught in the executable (exc_lib_main.cpp), and exceptions the
// executable throws from a callback unwind through the library's frames.
#pragma once
#include <exception>

// Key function (what) in the library: its typeinfo is the library's.
struct LibError : std::exception {
    int code;
    explicit LibError(int c) : code(c) {}
    const char *what() const noexcept override;
};

void lib_throw(int which);
// Calls cb(v) inside a frame with a destructor, catching only LibError;
// returns cb's result, or -1 if it threw LibError.
int lib_call(int (*cb)(int), int v);
extern int lib_frames_unwound;
