/* unused is external but nothing in the program calls it, so LTO drops it
   ("deadfunction"); probably_inlined is called from tu1.c. */

int unused(int x) {
    return x * 7 + 1;
}

int probably_inlined(int x) {
    return x * 16 + 2;
}
