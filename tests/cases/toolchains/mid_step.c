// Compiled by clang-19 -flto.
unsigned old_step(unsigned);
unsigned mid_step(unsigned x) { return old_step(x) + 7; }
