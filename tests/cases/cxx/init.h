// Static initialization across init_a.cpp, init_b.cpp and init_main.cpp:
// init_priority orders constructors across objects (and destructors in
// reverse); objects without a priority run after them, in link order.
#pragma once
#include <string>

struct Tracer {
    std::string name;
    int value;
    Tracer(const char *name, int value);
    ~Tracer();
};

void log_event(const std::string &what);
const std::string &event_log();

extern Tracer config_a;    // init_a.cpp, priority 200
extern Tracer derived_b;   // init_b.cpp, priority 300, reads config_a.value
