// C++-specific behaviour of the host (host_test.go).
#include "tether.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

static int loud = (std::printf("static init\n"), 1);

long long add(long long a, long long b) { return a + b + loud - 1; }
TETHER_EXPORT(add);

long long fast(const std::string& s) {
  std::ios::sync_with_stdio(false);
  std::cout << "fast:" << s << '\n';
  return 1;
}
TETHER_EXPORT(fast);

long long raw(const std::string& s) {
  std::string line = "raw:" + s + "\n";
  return static_cast<long long>(write(1, line.data(), line.size()));
}
TETHER_EXPORT(raw);

std::map<std::string, std::vector<double>> shape(std::optional<int> o, tether::bytes b, std::vector<std::vector<int>> grid) {
  double cells = 0;
  for (auto& row : grid) cells += static_cast<double>(row.size());
  return {{"o", {static_cast<double>(o.value_or(-1))}}, {"b", {static_cast<double>(b.size()), 0.5}}, {"cells", {cells}}};
}
TETHER_EXPORT(shape);

unsigned char small(unsigned char x) { return x; }
TETHER_EXPORT(small);

// Integer and boolean parameters of several widths: the host's fast lane.
long long mix(bool b, int i, unsigned u) { return b ? i : static_cast<long long>(u); }
TETHER_EXPORT(mix);

tether::bytes reverse(tether::bytes b) { return tether::bytes(b.rbegin(), b.rend()); }
TETHER_EXPORT(reverse);

// A bigint within 128 bits: as_int128() reads it, json(__int128) writes it.
tether::json wide_sum(const tether::json& a, const tether::json& b) { return a.as_int128() + b.as_int128(); }
TETHER_EXPORT(wide_sum);

double nan_value() { return 0.0 / 0.0 * 0; }
TETHER_EXPORT(nan_value);

long long spin(long long ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  long long n = 0;
  while (std::chrono::steady_clock::now() < end) n++;
  return n > 0;
}
TETHER_EXPORT(spin);
