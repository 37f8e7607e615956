// See solution.py: add, and add_* misbehaving one way each.
#include "tether.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

long long add(long long a, long long b) { return a + b; }
TETHER_EXPORT(add);

long long add_wrong(long long a, long long b) { return a - b; }
TETHER_EXPORT(add_wrong);

long long add_crash(long long, long long) { std::abort(); }
TETHER_EXPORT(add_crash);

long long add_throw(long long a, long long b) { return std::vector<long long>{}.at(a + b + 7); }
TETHER_EXPORT(add_throw);

long long add_spin(long long, long long) {
  for (volatile long long i = 0;; i++) {
  }
}
TETHER_EXPORT(add_spin);

long long add_hog(long long, long long) {
  static std::vector<char *> keep;
  for (int i = 0; i < 64; i++) {
    char *p = static_cast<char *>(std::malloc(16 << 20));
    if (!p) std::abort();
    std::memset(p, 1, 16 << 20);
    keep.push_back(p);
  }
  return static_cast<long long>(keep.size());
}
TETHER_EXPORT(add_hog);

long long add_chatty(long long a, long long b) {
  std::printf("chatty: %lld + %lld\n", a, b);
  return a + b;
}
TETHER_EXPORT(add_chatty);
