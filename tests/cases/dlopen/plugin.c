/* A -shared output loaded with dlopen: exported code and data, TLS, a
 * constructor and a destructor. */
#include <stdio.h>

int plugin_data = 5;
__thread int plugin_tls = 3;
static const char *state = "not initialized";
static const char *const names[] = {"alpha", "beta", "gamma"};

__attribute__((constructor)) static void plugin_init(void) { state = "initialized"; plugin_data *= 2; }
__attribute__((destructor)) static void plugin_fini(void) { puts("plugin destructor ran"); }

int plugin_compute(int x) { return x * plugin_data + plugin_tls++; }
const char *plugin_state(void) { return state; }
const char *plugin_name(int i) { return names[i % 3]; }
