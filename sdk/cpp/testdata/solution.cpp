// The functions sdk/internal/hosttest calls, in C++.
#include "tether.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

long long add(long long a, long long b) { return a + b; }
TETHER_EXPORT(add);

tether::json echo(tether::json v) { return v; }
TETHER_EXPORT(echo);

int fail() { return std::vector<int>{1, 2, 3}.at(7); }
TETHER_EXPORT(fail);

long long shout(const std::string& s) {
  std::printf("out:%s\n", s.c_str());
  std::cerr << "err:" << s << "\n";
  return static_cast<long long>(s.size());
}
TETHER_EXPORT(shout);

long long twice(long long x) { return tether::call_capability("double", x).as_int() + 1; }
TETHER_EXPORT(twice);

std::string capcode(const std::string& name) {
  try {
    tether::call_capability(name);
    return "ok";
  } catch (const tether::capability_error& e) {
    return e.code();
  }
}
TETHER_EXPORT(capcode);
