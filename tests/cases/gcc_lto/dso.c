/* A shared library built from GCC's IR: exported symbols stay visible. */
__attribute__((visibility("hidden"))) int helper(int x) { return x * 3; }
int api(int x) { return helper(x) + 1; }
int api_var = 11;
