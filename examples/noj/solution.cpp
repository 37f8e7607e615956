// Reverse the words, nothing but the function.
#include <sstream>
#include <string>
#include <vector>

std::string solve(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::string out;
  for (auto it = words.rbegin(); it != words.rend(); ++it) out += (out.empty() ? "" : " ") + *it;
  return out;
}
