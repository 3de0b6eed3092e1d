/* What the fake plugin "compiles" the claimed file into. */
int helper_from_lib(int);
int fake_fn(int x) { return helper_from_lib(x) * 10; }
