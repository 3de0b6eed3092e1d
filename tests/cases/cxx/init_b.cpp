#include "init.h"

static int compute() { return config_a.value + 2; }

Tracer plain_b("b_plain", 0);
Tracer derived_b __attribute__((init_priority(300))) ("b300", compute());
Tracer early_b __attribute__((init_priority(150))) ("b150", 0);
