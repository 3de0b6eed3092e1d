#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

struct Point {
    int x, y;
};
std::ostream &operator<<(std::ostream &os, const Point &p);
std::string table(const std::map<std::string, double> &m);
std::vector<int> parse_ints(const std::string &text);

int main() {
    std::cout << "hello from iostream " << 42 << ' ' << 2.5 << ' ' << true << std::endl;
    std::cout << std::boolalpha << true << ' ' << std::hex << std::showbase << 255 << ' '
              << std::oct << 8 << std::dec << ' ' << Point{3, -4} << '\n';
    std::map<std::string, double> m{{"pi", 3.14159}, {"e", 2.71828}, {"answer", 42}};
    std::cout << table(m);
    std::vector<int> v = parse_ints("5 3 9 1 7 not-a-number 8");
    std::sort(v.begin(), v.end());
    std::cout << "parsed " << v.size() << " ints, sorted:";
    for (int x : v)
        std::cout << ' ' << x;
    std::cout << ", sum " << std::accumulate(v.begin(), v.end(), 0) << '\n';
    std::string s = "The quick brown fox";
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
    std::cout << s << " (" << s.find("BROWN") << ")\n";
    std::cerr << "to stderr: " << std::setfill('*') << std::setw(6) << 7 << std::endl;
    std::clog << "clog line" << std::endl;
    std::wcout << L"wide " << 12 << std::endl;
    return 0;
}
