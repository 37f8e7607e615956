// The explicit form, for a problem without declared functions: include
// tether.hpp and export each function. It works with declarations too.
#include "tether.hpp"

// The numbers arrive as tether::json (beyond 64 bits, their digits);
// as_int128() reads one of up to 128 bits.
tether::json add(tether::json a, tether::json b) { return a.as_int128() + b.as_int128(); }
TETHER_EXPORT(add);
