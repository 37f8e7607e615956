// The explicit form, for a problem without declared functions: include
// tether.hpp and export each function. It works with declarations too.
#include "tether.hpp"

#include <string>

// add on integers of any size up to 127 bits: the numbers arrive as
// tether::json, beyond 64 bits as their decimal digits.
static __int128 parse(const tether::json& v) {
  std::string s = v.text();
  bool neg = !s.empty() && s[0] == '-';
  __int128 n = 0;
  for (size_t i = neg ? 1 : 0; i < s.size(); i++) n = n * 10 + (s[i] - '0');
  return neg ? -n : n;
}

static tether::json format(__int128 n) {
  if (n >= INT64_MIN && n <= INT64_MAX) return tether::json(static_cast<long long>(n));
  bool neg = n < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(n) : n;
  std::string s;
  while (u > 0) s.insert(s.begin(), char('0' + u % 10)), u /= 10;
  return tether::json::big_integer(neg ? "-" + s : s);
}

tether::json add(tether::json a, tether::json b) { return format(parse(a) + parse(b)); }
TETHER_EXPORT(add);
