#include "init.h"
#include <cstdio>

Tracer main_obj __attribute__((init_priority(250))) ("m250", 0);
Tracer plain_main("m_plain", 0);

int main() {
    std::printf("constructed: %s\n", event_log().c_str());
    std::printf("derived_b.value = %d (config_a was ready: %s)\n", derived_b.value,
                derived_b.value == 42 ? "yes" : "no");
    static Tracer local("local_static", 0);
    std::printf("main done\n");
}
