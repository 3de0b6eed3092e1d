/* Stores a function pointer as an integer (a ptrtoint and an i64 store). */
#include <stdint.h>

typedef int (*op_fn)(int);

__attribute__((noinline)) void stash(void *where, op_fn f) {
    *(uintptr_t *)where = (uintptr_t)f;
}
