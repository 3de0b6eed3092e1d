#include "rtti.h"

Shape::~Shape() {}
Printable::~Printable() {}
double Circle::area() const { return 3.0 * r * r; }
double Square::area() const { return s * s; }
const char *Square::label() const { return "square"; }

Shape *make_shape(int kind) {
    switch (kind) {
    case 0: return new Circle(2);
    case 1: return new Square(3);
    default: return new geo::Box<int>(4);
    }
}

const std::type_info &box_int_type_in_types_cpp() { return typeid(geo::Box<int>); }
const std::type_info &type_of(const Shape &s) { return typeid(s); }
