#define _GNU_SOURCE
/* The host's `message` callback of the gold plugin interface. It is variadic (printf-like),
   which Rust cannot define, so this formats the message and hands the text to Rust. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int rld_plugin_message_text(int level, const char *text);

int rld_plugin_message(int level, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = NULL;
  int n = vasprintf(&text, format, args);
  va_end(args);
  int status = rld_plugin_message_text(level, n < 0 ? format : text);
  free(text);
  return status;
}
