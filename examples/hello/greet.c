#include <stdio.h>

static const char *const greetings[] = {"Hello", "Bonjour", "Hola"};

/* Prints a greeting for `name` in language `lang` (0-2) and returns its length. */
int greet(const char *name, int lang) {
  return printf("%s, %s!\n", greetings[lang % 3], name);
}

/* Nothing calls this: with -flto, rld's dead-symbol analysis drops it and says so in the
 * optimization remarks. */
int farewell(const char *name) {
  return printf("Goodbye, %s!\n", name);
}
