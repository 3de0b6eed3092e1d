/* Bitcode for a shared library: lib_api is called by no one inside the
   library; its users are outside the LTO unit. */
__attribute__((visibility("hidden"))) int hidden_unreferenced(int x) {
    return x - 1;
}

int lib_api(int x) {
    return x * x + 1;
}
