/* Constructors run by priority (lower first), then unprioritized ones in link
 * order; atexit handlers run in reverse registration order, then destructors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static char ctor_log[256];

void note(const char *what) {
  if (ctor_log[0]) strcat(ctor_log, " ");
  strcat(ctor_log, what);
}

static void exit1(void) { puts("atexit 1"); }
static void exit2(void) { puts("atexit 2"); }
static void exit_from_ctor(void) { puts("atexit from ctor"); }

__attribute__((constructor(150))) static void m150(void) { note("m150"); }
__attribute__((constructor)) static void m_plain(void) {
  note("m_plain");
  atexit(exit_from_ctor);
}
__attribute__((destructor(150))) static void m_d150(void) { puts("dtor m150"); }

int main(void) {
  const char *want = "a101 b102 m150 a200 b201 a_plain b_plain m_plain";
  printf("ctors: %s\n", ctor_log);
  if (strcmp(ctor_log, want) != 0) {
    printf("FAIL: constructor order, want: %s\n", want);
    return 1;
  }
  atexit(exit1);
  atexit(exit2);
  puts("main done");
  return 0;
}
