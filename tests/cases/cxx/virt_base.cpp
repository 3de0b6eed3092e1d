#include "virt.h"
#include <cstdio>

Animal::Animal(std::string n) : name(std::move(n)) {}
Animal::~Animal() { std::printf("~Animal(%s)\n", name.c_str()); }
std::string Animal::describe() const { return name + " says " + sound(); }
Named::~Named() {}
std::string Named::id() const { return "named#" + std::to_string(serial); }
Speaker::~Speaker() {}
std::string Pet::owner() const { return "nobody"; }
std::string Worker::job() const { return "none"; }
