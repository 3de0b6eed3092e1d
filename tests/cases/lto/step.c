/* Native code the LTO unit calls through `invoke` (own_personality.ll). */
int step(int x) { return x + 1; }
