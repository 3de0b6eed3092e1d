// Exceptions thrown in exc_throw.cpp and caught in exc_main.cpp (and the other
// way round, through exc_throw.cpp's frames).
#pragma once
#include <stdexcept>
#include <string>

// Key function (the destructor) in exc_throw.cpp: vtable and typeinfo live there.
struct AppError : std::runtime_error {
    int code;
    AppError(const std::string &msg, int code);
    ~AppError() override;
};

// No key function: typeinfo and vtable are COMDAT, emitted where used.
struct ParseError : AppError {
    explicit ParseError(const std::string &msg) : AppError("parse: " + msg, 2) {}
};

void throw_app(int code);
void throw_parse(const char *what);
void throw_int(int v);
void throw_std(int which);
// Calls fn() under `depth` nested frames that each own an object whose
// destructor prints, and lets any exception pass.
void through_frames(int depth, void (*fn)());
// Calls fn(), catches AppError, adds context and rethrows a new exception.
void wrap_and_rethrow(void (*fn)());
