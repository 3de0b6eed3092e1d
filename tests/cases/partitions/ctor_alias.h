// A class with an out-of-line constructor: clang emits D::D() (C1) as an alias of the
// base-object constructor (C2).
struct D {
  D();
  int get() const;
  int x;
};
