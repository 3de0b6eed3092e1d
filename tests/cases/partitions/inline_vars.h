// Inline variables with dynamic initializers: clang puts each variable, its guard and its
// initializer (an internal function) in one COMDAT group per module, with a constructor
// entry keyed to the variable. One module's group prevails; the others are discarded
// whole, and every variable is initialized once.
#pragma once
int next_id(const char *who);
inline int shared_id = next_id("shared_id");
template <int N> struct Tag {
  static inline int id = next_id("Tag");
};
