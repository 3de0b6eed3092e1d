// The first copies of linkonce.h's definitions, the ones that prevail; but nothing here
// that uses them is live, so nothing in this module refers to them once the dead code is
// gone.
#include "linkonce.h"

void unused_thrower(int code) { throw Oops{code}; }

Shape *unused_shape(int side) { return new Square(side); }

int unused_checked(int x) { return checked(x); }
