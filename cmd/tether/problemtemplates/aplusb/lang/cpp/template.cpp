// What contestants start from: export add(a, b) with TETHER_EXPORT. The
// numbers may be larger than 64 bits: take tether::json and read
// as_int128() (or text(), the digits), or long long when the cases fit
// (docs/languages.md).
#include "tether.hpp"

#include <stdexcept>

tether::json add(tether::json a, tether::json b) { throw std::runtime_error("add is not written yet"); }
TETHER_EXPORT(add);
