#include "ctor_alias.h"

D::D() : x(42) {}
int D::get() const { return x; }
