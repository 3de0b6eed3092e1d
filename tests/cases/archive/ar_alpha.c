int beta(int x);
int alpha(int x) { return beta(x * 2); }
