#include "tls.h"
#include <cstdio>

thread_local int tl_plain = 5;
thread_local Tracked tl_tracked;

Tracked::Tracked() : owner(thread_name()) { std::printf("  Tracked() in %s\n", owner.c_str()); }
Tracked::~Tracked() {
    std::printf("  ~Tracked() in %s after %d hit(s), tl_plain=%d\n", owner.c_str(), hits, tl_plain);
    std::fflush(stdout);
}
