// Inline functions, a class without a key function and an exception type: every module
// that uses them has its own linkonce_odr copy (each in a COMDAT of its own), and the
// linker keeps the copy of the first module that has one.
struct Oops {
    int code;
};

struct Shape {
    virtual ~Shape() {}
    virtual int area() const = 0;
};

struct Square : Shape {
    int side;
    explicit Square(int s) : side(s) {}
    ~Square() override {}
    int area() const override { return side * side; }
};

int may_throw(int x);

// Terminates if may_throw throws: clang calls its `__clang_call_terminate` (linkonce_odr
// hidden) from the landing pad.
inline int checked(int x) noexcept { return may_throw(x) + 1; }
