/* Compiled with -ffunction-sections -fdata-sections, linked with --gc-sections. */
#include <stdio.h>

int gc_used_data = 7;
int gc_dead_data = 99;              /* never referenced: collected */
int gc_ctor_seen;

int gc_dead_function(int x) { return x * gc_dead_data; } /* never called: collected */

int gc_used_function(int x) { return x + gc_used_data; }

/* Never referenced, but SHF_GNU_RETAIN keeps its section. */
__attribute__((used, retain)) int gc_retained_function(int x) { return x - 1; }

/* Only reachable from .init_array, which is always kept. */
volatile int gc_helper_base = 30;
__attribute__((noinline)) int gc_ctor_helper(void) { return gc_helper_base + 1; }
__attribute__((constructor)) static void gc_ctor(void) { gc_ctor_seen = gc_ctor_helper(); }
