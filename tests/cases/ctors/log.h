/* A log that constructors append to before main runs (defined in ctor_main.c). */
void note(const char *what);
