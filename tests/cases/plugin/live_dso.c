/* A shared library that calls back into the executable: used_by_dso must stay, exported. */
int used_by_dso(int);
int dso_call(int x) { return used_by_dso(x) + 100; }
