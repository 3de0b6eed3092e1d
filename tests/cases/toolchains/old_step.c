// Compiled by clang-14 -flto: bitcode of LLVM 14 (typed pointers).
unsigned old_step(unsigned x) { return x * 2654435761u; }
