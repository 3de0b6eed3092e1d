#include "exc.h"
#include <cstdio>
#include <exception>

struct MainError {
    const char *msg;
};

static void throws_main_error() { throw MainError{"from main.cpp"}; }
static void throws_app_7() { throw_app(7); }

int main() {
    try {
        throw_app(42);
    } catch (const AppError &e) {
        std::printf("caught AppError: %s (code %d)\n", e.what(), e.code);
    }
    try {
        throw_parse("unexpected token");
    } catch (const std::runtime_error &e) {
        const AppError *app = dynamic_cast<const AppError *>(&e);
        std::printf("caught as runtime_error: %s, is AppError: %s, code %d\n", e.what(),
                    app ? "yes" : "no", app ? app->code : -1);
    }
    try {
        throw_int(5);
    } catch (long) {
        std::printf("wrong handler\n");
    } catch (int v) {
        std::printf("caught int %d\n", v);
    }
    for (int which = 0; which < 3; which++) {
        try {
            throw_std(which);
        } catch (const std::out_of_range &) {
            std::printf("caught out_of_range\n");
        } catch (const std::invalid_argument &e) {
            std::printf("caught invalid_argument: %s\n", e.what());
        } catch (const std::exception &e) {
            std::printf("caught exception: %s\n", e.what());
        }
    }
    std::printf("throwing through 3 frames of exc_throw.cpp:\n");
    try {
        through_frames(2, throws_main_error);
    } catch (const MainError &e) {
        std::printf("caught MainError: %s\n", e.msg);
    }
    try {
        wrap_and_rethrow(throws_app_7);
    } catch (const std::exception &e) {
        std::printf("caught: %s\n", e.what());
    }
    std::exception_ptr saved;
    try {
        throw_parse("saved");
    } catch (...) {
        saved = std::current_exception();
    }
    try {
        try {
            std::rethrow_exception(saved);
        } catch (const ParseError &) {
            std::printf("rethrow_exception gives ParseError, rethrowing\n");
            throw;
        }
    } catch (const AppError &e) {
        std::printf("caught again as AppError: %s\n", e.what());
    }
    std::printf("uncaught exceptions now: %d\n", std::uncaught_exceptions());
    return 0;
}
