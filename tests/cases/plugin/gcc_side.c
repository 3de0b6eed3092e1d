/* Compiled by gcc (plain, or -flto -ffat-lto-objects): not bitcode, so rld's plugin
 * declines it and the host links its machine code. */
int from_gcc(int x) { return x + 40; }
