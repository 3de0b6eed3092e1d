/* Data and code used by basic_main.c: relocated data, a jump table, TLS, a
 * constructor and a static local. */
#include <stdio.h>
#include <string.h>

const char *const colors[] = {"red", "green", "blue", "yellow"};
const char *const *color_table = colors;
int counters[4] = {1, 2, 3, 4};
int *counter_ptrs[4] = {&counters[3], &counters[2], &counters[1], &counters[0]};
__thread int util_tls = 11;
__thread int util_tls_zero;
int ctor_value;
const double scale = 2.5;

__attribute__((constructor)) static void util_init(void) { ctor_value = 1234; }

int next_id(void) {
  static int id = 100;
  return id++;
}

const char *describe(int n) {
  switch (n) {
    case 0: return "zero";
    case 1: return "one";
    case 2: return "two";
    case 3: return "three";
    case 4: return "four";
    case 5: return "five";
    case 6: return "six";
    default: return "many";
  }
}

double scaled(int x) { return x * scale; }

int bump_tls(void) { return ++util_tls + util_tls_zero++; }
