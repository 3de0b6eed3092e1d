#include <cstdio>

#include "ctor_alias.h"

int main() {
  D d;
  std::printf("%d\n", d.get());
  return 0;
}
