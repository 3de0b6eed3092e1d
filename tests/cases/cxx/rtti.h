// Polymorphic types defined in rtti_types.cpp and inspected in rtti_main.cpp
// with typeid and dynamic_cast.
#pragma once
#include <typeinfo>

struct Shape {
    virtual ~Shape();                 // key function: typeinfo in rtti_types.cpp
    virtual double area() const = 0;
};
struct Printable {
    virtual ~Printable();
    virtual const char *label() const = 0;
};
struct Circle : Shape {
    double r;
    explicit Circle(double r) : r(r) {}
    double area() const override;
};
// Multiple inheritance: dynamic_cast cross-casts between Shape and Printable.
struct Square : Shape, Printable {
    double s;
    explicit Square(double s) : s(s) {}
    double area() const override;
    const char *label() const override;
};
namespace geo {
template <class T> struct Box : Shape {   // no key function: COMDAT typeinfo
    T w;
    explicit Box(T w) : w(w) {}
    double area() const override { return double(w) * double(w); }
};
}

Shape *make_shape(int kind);
const std::type_info &box_int_type_in_types_cpp();
const std::type_info &type_of(const Shape &s);
