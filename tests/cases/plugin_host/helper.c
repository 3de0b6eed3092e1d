/* libfakehelper.a: found only in the directory the plugin names. */
int helper_from_lib(int x) { return x + 1; }
