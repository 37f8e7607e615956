// Binary search over the evaluator's games: the state lives between calls.
#include "tether.hpp"

#include <string>

static long long lo, hi, last;

void new_game(long long l, long long h) { lo = l, hi = h, last = 0; }
TETHER_EXPORT(new_game);

long long guess() { return last = lo + (hi - lo) / 2; }
TETHER_EXPORT(guess);

void feedback(const std::string& answer) {
  if (answer == "higher") lo = last + 1;
  if (answer == "lower") hi = last - 1;
}
TETHER_EXPORT(feedback);
