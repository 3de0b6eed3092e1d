// References a function nothing defines: fine in a shared library, unless
// the link asks for --no-undefined or -z defs.
int missing_fn_for_rld_test(int);

int uses_missing(int x) { return missing_fn_for_rld_test(x) + 1; }
