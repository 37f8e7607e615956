// The solution calls the evaluator's capabilities: lookup for each word,
// and slow_oracle, whose CapabilityError code it returns.
#include "tether.hpp"

#include <sstream>
#include <string>

std::string translate(const std::string& sentence) {
  std::istringstream in(sentence);
  std::string out;
  for (std::string w; in >> w;) {
    tether::json t = tether::call_capability("lookup", w);
    out += (out.empty() ? "" : " ") + (t.is_null() ? std::string("?") : t.as_string());
  }
  return out;
}
TETHER_EXPORT(translate);

tether::json ask_oracle() {
  try {
    return tether::call_capability("slow_oracle");
  } catch (const tether::capability_error& e) {
    return e.code();
  }
}
TETHER_EXPORT(ask_oracle);
