#include "tether.hpp"

// A missing semicolon: CompileError, with the compiler's line.
long long add(long long a, long long b) { return a + b }
TETHER_EXPORT(add);
