#include <stdexcept>
#include <string>
void thrower(int x) { if (x > 2) throw std::runtime_error("boom " + std::to_string(x)); }
