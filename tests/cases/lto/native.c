/* Compiled without -flto: an ELF object calling into the bitcode. */
int from_native(int);

int native_entry(int x) {
    return from_native(x) + 1;
}
