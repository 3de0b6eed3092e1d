/* Refers to missing_b from a subdirectory (a relative path in the line table). */
int missing_b(void);
int helper(void) {
  return missing_b();
}
