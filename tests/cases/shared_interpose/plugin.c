// A library for dl_host.c to dlopen: state set by a constructor, a function
// and a variable looked up with dlsym, a destructor run by dlclose.
#include <stdio.h>

int plugin_ready;
int plugin_counter = 100;
static int calls;

__attribute__((constructor)) static void plugin_init(void) { plugin_ready = 1; }
__attribute__((destructor)) static void plugin_fini(void) {
    printf("plugin destructor: %d call(s)\n", calls);
    fflush(stdout);
}

int plugin_add(int x) {
    calls++;
    return x + plugin_counter + plugin_ready;
}

static int plugin_private(void) { return 7; }
int (*plugin_get_private(void))(void) { return plugin_private; }
