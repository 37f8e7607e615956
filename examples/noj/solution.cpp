// reverse_words, callable as solve (Neuro OJ's SDK name in the Python one).
#include "tether.hpp"

#include <sstream>
#include <string>
#include <vector>

std::string reverse_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::string out;
  for (auto it = words.rbegin(); it != words.rend(); ++it) out += (out.empty() ? "" : " ") + *it;
  return out;
}
TETHER_EXPORT_AS("solve", reverse_words);
