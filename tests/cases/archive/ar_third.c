int third_value = 100;
int third(int x) { return x + third_value; }
