int third(int x);
int beta(int x) { return third(x + 3); }
