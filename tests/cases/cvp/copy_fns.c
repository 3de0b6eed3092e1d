/* Copies of function pointers that clang -O2 compiles to loads and stores of a
   non-pointer type: `assign` (a one-pointer struct assignment: a memcpy of 8 bytes
   that InstCombine turns into an i64 load and store) and `copy_pair` (two field
   copies that the SLP vectorizer merges into one <2 x i32 (i32)*> load and store). */
#include "copy.h"

__attribute__((noinline)) void assign(struct handler *dst, const struct handler *src) {
    *dst = *src;
}

__attribute__((noinline)) void copy_pair(struct pair *dst, const struct pair *src) {
    dst->first = src->first;
    dst->second = src->second;
}
