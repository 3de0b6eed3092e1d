/* A native shared library: sink() receives the address of the executable's function
   pointer and may overwrite it with one of its own functions. */
static int lib_times(int x) { return x * 1000; }

void sink(void *slot, int overwrite) {
    if (overwrite)
        *(int (**)(int))slot = lib_times;
}
