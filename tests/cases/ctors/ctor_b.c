#include <stdio.h>

#include "log.h"

__attribute__((constructor(102))) static void b102(void) { note("b102"); }
__attribute__((constructor(201))) static void b201(void) { note("b201"); }
__attribute__((constructor)) static void b_plain(void) { note("b_plain"); }

__attribute__((destructor(102))) static void b_d102(void) { puts("dtor b102"); }
__attribute__((destructor(200))) static void b_d200(void) { puts("dtor b200"); }
__attribute__((destructor)) static void b_dplain(void) { puts("dtor b_plain"); }
