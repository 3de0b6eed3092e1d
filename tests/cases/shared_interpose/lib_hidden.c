// Hidden symbols are usable inside the library but not exported.
__attribute__((visibility("hidden"), noinline)) int hidden_fn(int x) { return x + 1; }
__attribute__((visibility("hidden"))) int hidden_var = 41;

int exported_fn(int x) { return hidden_fn(x) + hidden_var; }
