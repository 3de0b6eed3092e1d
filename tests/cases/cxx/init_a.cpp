#include "init.h"
#include <cstdio>

// The log itself must exist before any Tracer: it gets the lowest priority.
static std::string &log_storage() {
    static std::string s;
    return s;
}
void log_event(const std::string &what) { log_storage() += what + " "; }
const std::string &event_log() { return log_storage(); }

Tracer::Tracer(const char *n, int v) : name(n), value(v) { log_event("+" + name); }
Tracer::~Tracer() { std::printf("destroy %s\n", name.c_str()); }

Tracer late_a __attribute__((init_priority(5000))) ("a5000", 1);
Tracer config_a __attribute__((init_priority(200))) ("a200", 40);
Tracer plain_a("a_plain", 0);
