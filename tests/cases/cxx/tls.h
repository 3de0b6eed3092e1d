// thread_local objects with constructors and destructors: one defined in
// tls_def.cpp and used from tls_main.cpp (through the TLS wrapper and init
// functions), one function-local in tls_main.cpp.
#pragma once
#include <string>

struct Tracked {
    std::string owner;
    int hits = 0;
    Tracked();
    ~Tracked();
};

extern thread_local Tracked tl_tracked;   // dynamic initialization: _ZTW/_ZTH
extern thread_local int tl_plain;         // constant-initialized
void set_thread_name(const std::string &name);
const std::string &thread_name();
void report(const char *where);
