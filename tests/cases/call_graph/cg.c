#include <stdio.h>
__attribute__((noinline)) int cold_a(int x) { return x - 1; }
__attribute__((noinline)) int hot_b(int x) { return x * 3; }
__attribute__((noinline)) int cold_c(int x) { return x + 7; }
__attribute__((noinline)) int hot_d(int x) { return hot_b(x) + 1; }
__attribute__((noinline)) int cold_e(int x) { return cold_a(x) * 2; }
int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < 1000; i++) s += hot_d(i);
  if (argc > 5) s += cold_c(argc) + cold_e(argc);
  printf("%d\n", s);
  return 0;
}
