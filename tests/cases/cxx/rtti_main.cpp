#include "rtti.h"
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>

static void print_type(const std::type_info &ti) {
    int status = 0;
    char *demangled = abi::__cxa_demangle(ti.name(), nullptr, nullptr, &status);
    std::printf("%s (%s)", ti.name(), status == 0 ? demangled : "?");
    std::free(demangled);
}

int main() {
    for (int kind = 0; kind < 3; kind++) {
        Shape *s = make_shape(kind);
        std::printf("shape %d: typeid ", kind);
        print_type(typeid(*s));
        std::printf(", area %.1f\n", s->area());
        std::printf("  is Circle: %s, is Square: %s, is Box<int>: %s\n",
                    dynamic_cast<Circle *>(s) ? "yes" : "no",
                    dynamic_cast<Square *>(s) ? "yes" : "no",
                    dynamic_cast<geo::Box<int> *>(s) ? "yes" : "no");
        if (Printable *p = dynamic_cast<Printable *>(s))
            std::printf("  cross-cast to Printable: %s, back to Shape: %s\n", p->label(),
                        dynamic_cast<Shape *>(p) == s ? "same object" : "different");
        std::printf("  dynamic_cast<void*> is the object: %s\n",
                    dynamic_cast<void *>(s) == static_cast<void *>(s) ? "yes" : "no");
        std::printf("  typeid here == typeid in rtti_types.cpp: %s\n",
                    typeid(*s) == type_of(*s) ? "yes" : "no");
        try {
            Circle &c = dynamic_cast<Circle &>(*s);
            std::printf("  reference cast to Circle ok, r=%.0f\n", c.r);
        } catch (const std::bad_cast &e) {
            std::printf("  reference cast to Circle threw std::bad_cast\n");
        }
        delete s;
    }
    std::printf("Box<int> typeinfo equal across objects: %s, same object: %s\n",
                typeid(geo::Box<int>) == box_int_type_in_types_cpp() ? "yes" : "no",
                &typeid(geo::Box<int>) == &box_int_type_in_types_cpp() ? "yes" : "no");
    std::printf("typeid(Circle) before typeid(Square): %s\n",
                typeid(Circle).before(typeid(Square)) ? "yes" : "no");
    std::printf("builtin: ");
    print_type(typeid(unsigned long));
    std::printf("\n");
}
