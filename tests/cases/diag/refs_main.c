/* Calls two functions nothing defines, one from a file in a subdirectory. */
int missing_a(void);
int missing_b(void);
int helper(void);
int main(void) {
  int x = 1;
  return missing_a() + missing_b() + helper() + x;
}
