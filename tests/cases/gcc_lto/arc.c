int from_archive(int x) { return x + 1000; }
int unused_in_archive(int x) { return x - 1; }
