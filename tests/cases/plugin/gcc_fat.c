int from_gcc_fat(int x) { return x * 100; }
