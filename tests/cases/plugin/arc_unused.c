/* A bitcode member nothing needs: never linked (mold claims it, then reports it unused). */
int never_needed(int x) { return x - 1; }
