#include <stdio.h>

#include "log.h"

__attribute__((constructor(101))) static void a101(void) { note("a101"); }
__attribute__((constructor(200))) static void a200(void) { note("a200"); }
__attribute__((constructor)) static void a_plain(void) { note("a_plain"); }

__attribute__((destructor(101))) static void a_d101(void) { puts("dtor a101"); }
__attribute__((destructor)) static void a_dplain(void) { puts("dtor a_plain"); }
