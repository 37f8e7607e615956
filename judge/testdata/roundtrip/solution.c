/* Every declared function of problem.json echoes its argument, in the C types
   docs/languages.md maps the type language to: nothing but the functions. A
   value parameter belongs to the host, so its echo is a copy. */
#include <string.h>

long long echo_int(long long v) { return v; }
tether_value *echo_bigint(const tether_value *v) { return tether_copy(v); }
double echo_float(double v) { return v; }
bool echo_bool(bool v) { return v; }
const char *echo_string(const char *v) { return v; }
tether_value *echo_bytes(const tether_value *v) { return tether_copy(v); }
tether_value *echo_list(const tether_value *v) { return tether_copy(v); }
tether_value *echo_list_bool(const tether_value *v) { return tether_copy(v); }
tether_value *echo_list_float(const tether_value *v) { return tether_copy(v); }
tether_value *echo_list_bytes(const tether_value *v) { return tether_copy(v); }
tether_value *echo_nested_list(const tether_value *v) { return tether_copy(v); }
tether_value *echo_map(const tether_value *v) { return tether_copy(v); }
tether_value *echo_nested_map(const tether_value *v) { return tether_copy(v); }
tether_value *echo_optional_int(const tether_value *v) { return tether_copy(v); }
tether_value *echo_optional_string(const tether_value *v) { return tether_copy(v); }
tether_value *echo_optional_list(const tether_value *v) { return tether_copy(v); }
tether_value *echo_list_optional(const tether_value *v) { return tether_copy(v); }
tether_value *echo_point(const tether_value *v) { return tether_copy(v); }
tether_value *echo_shape(const tether_value *v) { return tether_copy(v); }
tether_value *echo_points(const tether_value *v) { return tether_copy(v); }
tether_value *echo_optional_point(const tether_value *v) { return tether_copy(v); }
tether_value *echo_point_map(const tether_value *v) { return tether_copy(v); }
tether_value *echo_any(const tether_value *v) { return tether_copy(v); }

tether_value *echo_mixed(long long a, const char *b, double c, bool d, const tether_value *e, const tether_value *f) {
  tether_value *l = tether_list();
  tether_append(l, tether_int(a));
  tether_append(l, tether_string(b));
  tether_append(l, tether_float(c));
  tether_append(l, tether_bool(d));
  tether_append(l, tether_copy(e));
  tether_append(l, tether_copy(f));
  return l;
}
