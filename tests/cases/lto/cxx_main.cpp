// C++ under LTO: virtual dispatch, RTTI, exceptions across translation units, thread_local
// std::string with threads; linked by rld and by lld, outputs compared.
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>
#include <string>
#include <memory>
struct Base { virtual ~Base() = default; virtual std::string name() const { return "base"; } };
struct Derived : Base { std::string name() const override { return "derived"; } };
void thrower(int x);
thread_local std::string tls_s = "tls";
int main() {
  std::vector<std::unique_ptr<Base>> v; v.emplace_back(new Base); v.emplace_back(new Derived);
  for (auto &b : v) std::cout << b->name() << " " << (dynamic_cast<Derived*>(b.get()) != nullptr) << "\n";
  try { thrower(3); } catch (const std::runtime_error &e) { std::cout << "caught " << e.what() << "\n"; }
  std::vector<std::thread> ts; int sum[4] = {0};
  for (int i = 0; i < 4; i++) ts.emplace_back([&sum, i] { tls_s += std::to_string(i); sum[i] = (int)tls_s.size(); });
  for (auto &t : ts) t.join();
  std::cout << sum[0] + sum[1] + sum[2] + sum[3] << " " << tls_s << "\n";
}
