// Linked second: the only definition of `D1`, an alias of this module's `D2`, which does
// not prevail.
#include "holder.h"

template struct Holder<int>;
