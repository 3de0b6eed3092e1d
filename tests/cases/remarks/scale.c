/* In its own file, so only link-time optimization can inline it into `run` (engine.c). */
#ifdef CHANGED
__attribute__((noinline))
#endif
int scale(int x) {
    return x * 3 + 1;
}
