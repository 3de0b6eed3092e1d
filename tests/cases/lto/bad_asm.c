/* Inline assembly is checked only when LLVM compiles it: under LTO, inside the linker. */
int main(void) {
  __asm__ volatile("bogusinsn %eax");
  return 0;
}
