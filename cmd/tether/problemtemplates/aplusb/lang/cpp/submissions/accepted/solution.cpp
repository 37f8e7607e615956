#include "tether.hpp"

// add on integers of up to 128 bits: the numbers arrive as tether::json
// (beyond 64 bits, their digits); as_int128() reads one, and the __int128
// sum converts back.
tether::json add(tether::json a, tether::json b) { return a.as_int128() + b.as_int128(); }
TETHER_EXPORT(add);
