// Formatting helpers for ios_main.cpp: std::ostream operators and string
// streams used across objects.
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct Point {
    int x, y;
};

std::ostream &operator<<(std::ostream &os, const Point &p) {
    return os << '(' << p.x << ", " << p.y << ')';
}

std::string table(const std::map<std::string, double> &m) {
    std::ostringstream os;
    for (const auto &[k, v] : m)
        os << std::left << std::setw(8) << k << '|' << std::right << std::setw(9)
           << std::fixed << std::setprecision(3) << v << '\n';
    return os.str();
}

std::vector<int> parse_ints(const std::string &text) {
    std::istringstream is(text);
    std::vector<int> v;
    int x;
    while (is >> x)
        v.push_back(x);
    return v;
}
