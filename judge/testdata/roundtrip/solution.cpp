// Every declared function of problem.json echoes its argument, in the C++
// types docs/languages.md maps the type language to: nothing but the functions.

long long echo_int(long long v) { return v; }
tether::json echo_bigint(tether::json v) { return v; }
double echo_float(double v) { return v; }
bool echo_bool(bool v) { return v; }
std::string echo_string(std::string v) { return v; }
tether::bytes echo_bytes(tether::bytes v) { return v; }
std::vector<long long> echo_list(std::vector<long long> v) { return v; }
std::vector<bool> echo_list_bool(std::vector<bool> v) { return v; }
std::vector<double> echo_list_float(std::vector<double> v) { return v; }
std::vector<tether::bytes> echo_list_bytes(std::vector<tether::bytes> v) { return v; }
std::vector<std::vector<std::string>> echo_nested_list(std::vector<std::vector<std::string>> v) { return v; }
std::map<std::string, long long> echo_map(std::map<std::string, long long> v) { return v; }
std::map<std::string, std::map<std::string, std::vector<double>>> echo_nested_map(std::map<std::string, std::map<std::string, std::vector<double>>> v) { return v; }
std::optional<long long> echo_optional_int(std::optional<long long> v) { return v; }
std::optional<std::string> echo_optional_string(std::optional<std::string> v) { return v; }
std::optional<std::vector<long long>> echo_optional_list(std::optional<std::vector<long long>> v) { return v; }
std::vector<std::optional<long long>> echo_list_optional(std::vector<std::optional<long long>> v) { return v; }
tether::json echo_point(tether::json v) { return v; }
tether::json echo_shape(tether::json v) { return v; }
std::vector<tether::json> echo_points(std::vector<tether::json> v) { return v; }
std::optional<tether::json> echo_optional_point(std::optional<tether::json> v) { return v; }
std::map<std::string, tether::json> echo_point_map(std::map<std::string, tether::json> v) { return v; }
tether::json echo_any(tether::json v) { return v; }

std::vector<tether::json> echo_mixed(long long a, std::string b, double c, bool d, tether::bytes e, tether::json f) {
  return {a, b, c, d, e, f};
}
