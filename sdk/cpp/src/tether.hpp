// tether.hpp: the C++ solution host of tether (docs/languages.md, "C++").
//
//     #include "tether.hpp"
//     long long add(long long a, long long b) { return a + b; }
//     TETHER_EXPORT(add);
//
// The solution has no main: this header brings one, which serves the
// evaluator's calls by function name over the judge protocol
// (docs/protocol/judge.md). Include it in exactly one file (the solution);
// it needs only the C++17 standard library and POSIX.
//
// Arguments and results convert for bool, every integer type (range
// checked), float, double, std::string, tether::bytes, std::vector<T>,
// std::map<std::string, T>, std::optional<T> (null), tether::json (any
// value) and void (a null result). A value that does not fit the parameter
// is answered Rejected naming it (`args[1]: expected an integer, got a
// string`); an exception the function throws is answered Exception with
// its class name (`std::out_of_range: vector::_M_range_check: ...`).
//
// Everything the solution writes to stdout or stderr (printf, std::cout,
// write(1, ...), child processes) is sent as log frames, before the answer
// of the call that wrote it; the protocol runs on private descriptors.
// stderr is also copied to the real stderr, so a crash's last words stay
// visible to the judge.
//
// tether::call_capability("name", args...) calls a capability of the
// evaluator; it throws tether::capability_error (code() is the wire code)
// or one of its subclasses.
#ifndef TETHER_HPP
#define TETHER_HPP

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tether {

// bytes travel as {"__bytes__": "<base64>"}; a distinct type so that a
// std::vector<std::uint8_t> stays a list of integers.
struct bytes : std::vector<std::uint8_t> {
  using std::vector<std::uint8_t>::vector;
  bytes() = default;
  explicit bytes(std::string_view s);
  std::string str() const;
};

// A value outside the transferable set, or one that does not fit a C++
// parameter; what() starts with the path of the value (`args[0]: ...`).
struct rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Any transferable value. Integers beyond 64 bits are kept as their decimal
// digits (kind::big_integer, text()).
//
// Members that use the containers are defined in tether_host.cpp, not
// here: every solution parses this header, and a body here would make each
// compile instantiate std::map and std::vector code for json whether it
// uses them or not (docs/languages.md, compile time).
class json;
namespace detail {
void put_json(std::string& out, const json& v, int depth);
}

class json {
 public:
  enum class kind { null, boolean, integer, big_integer, number, string, bytes, array, object };
  using array_t = std::vector<json>;
  using object_t = std::map<std::string, json>;

  json() = default;
  json(std::nullptr_t) {}
  json(bool b) : k_(kind::boolean) { u_.b = b; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  json(T v) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(long long)) {
      if (v > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
        k_ = kind::big_integer;
        s_ = std::to_string(v);
        return;
      }
    }
    k_ = kind::integer;
    u_.i = static_cast<long long>(v);
  }
  json(double d) : k_(kind::number) { u_.d = d; }
  json(float d) : k_(kind::number) { u_.d = d; }
  json(const char* s) : k_(kind::string), s_(s) {}
  json(std::string s) : k_(kind::string), s_(std::move(s)) {}
  json(std::string_view s) : k_(kind::string), s_(s) {}
#ifdef __SIZEOF_INT128__
  json(__int128 v);  // an integer; beyond 64 bits, kind::big_integer
#endif
  json(const tether::bytes& b);
  json(array_t a);
  json(object_t o);
  json(const json& o);
  json(json&& o) noexcept;
  json& operator=(const json& o);
  json& operator=(json&& o) noexcept;
  ~json();

  // An integer of any size from its decimal digits ("-123..."); not checked.
  static json big_integer(std::string digits);
  static json raw_bytes(std::string data);
  // The value of one JSON text, decoded as the protocol's codec does;
  // throws tether::rejected.
  static json parse(std::string_view text);
  // The canonical JSON text; throws tether::rejected (NaN, bad UTF-8...).
  std::string dump() const;

  kind type() const { return k_; }
  bool is_null() const { return k_ == kind::null; }
  bool is_bool() const { return k_ == kind::boolean; }
  bool is_integer() const { return k_ == kind::integer || k_ == kind::big_integer; }
  bool is_number() const { return k_ == kind::number; }
  bool is_string() const { return k_ == kind::string; }
  bool is_bytes() const { return k_ == kind::bytes; }
  bool is_array() const { return k_ == kind::array; }
  bool is_object() const { return k_ == kind::object; }

  bool as_bool() const { return want(kind::boolean), u_.b; }
  long long as_int() const;
  double as_double() const;
  const std::string& as_string() const { return want(kind::string), s_; }
  tether::bytes as_bytes() const;
  // The digits of an integer of any size.
  std::string text() const;
#ifdef __SIZEOF_INT128__
  // An integer of up to 128 bits (a bigint that needs no digits read by
  // hand); throws tether::rejected beyond, or for another kind.
  __int128 as_int128() const;
#endif
  const array_t& as_array() const { return want(kind::array), a_; }
  array_t& as_array() { return want(kind::array), a_; }
  const object_t& as_object() const { return want(kind::object), *o_; }
  object_t& as_object() { return want(kind::object), *o_; }

  // Converts to T as a parameter of type T would be (see the list above).
  template <class T>
  T get() const;

  std::size_t size() const;
  const json& operator[](std::size_t i) const;
  json& operator[](std::size_t i);
  const json& operator[](const std::string& key) const;
  json& operator[](const std::string& key);
  void push_back(json v);

  static const char* kind_name(kind k);

 private:
  void want(kind k) const {
    if (k_ != k) wrong_kind(k);
  }
  [[noreturn]] void wrong_kind(kind k) const;
  friend const std::string& detail_bytes(const json& j);
  kind k_ = kind::null;
  union {
    bool b;
    long long i;
    double d;
  } u_{};
  std::string s_;  // string, bytes, big integer digits
  array_t a_;
  object_t* o_ = nullptr;  // owned (json is incomplete in its own members)
};

// A capability call failed. code() is the answer's wire code: "NotFound",
// "Rejected", "CallTimeout" (the judge's deadline passed), "Exception" (the
// evaluator's handler threw), ...; empty for a closed channel.
class capability_error : public std::runtime_error {
 public:
  capability_error(std::string code, const std::string& message) : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};
struct capability_not_found : capability_error {
  explicit capability_not_found(const std::string& m) : capability_error("NotFound", m) {}
};
struct capability_rejected : capability_error {
  explicit capability_rejected(const std::string& m) : capability_error("Rejected", m) {}
};
// The channel to the judge is closed (stdin ended), or no host runs.
struct capability_connection_error : capability_error {
  explicit capability_connection_error(const std::string& m) : capability_error("", m) {}
};


inline const std::string& detail_bytes(const json& j) { return j.s_; }

namespace detail {

constexpr std::size_t max_frame = 1 << 20;  // docs/protocol/judge.md, "Limits"
constexpr std::size_t max_line = 4 << 20;
constexpr int max_depth = 512;
constexpr int max_int_digits = 4300;

// ---------------------------------------------------------------- encoding

// Canonical JSON text of a string (UTF-8 kept; '"', '\\' and control
// characters escaped). s is not checked.
void put_escaped(std::string& out, std::string_view s);
// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when invalid.
int utf8_seq(const unsigned char* s, std::size_t n, std::size_t i);
bool valid_utf8(std::string_view s);
// s with invalid UTF-8 replaced by U+FFFD.
std::string utf8_replace(std::string_view s);

struct path_error : std::exception {
  std::string path, reason;
  path_error(std::string p, std::string r) : path(std::move(p)), reason(std::move(r)) {}
  const char* what() const noexcept override { return reason.c_str(); }
};

inline std::string index_path(std::size_t i) { return "[" + std::to_string(i) + "]"; }
std::string key_path(const std::string& k);

// These throw path_error (NaN, invalid UTF-8, ...), the path empty.
void put_string(std::string& out, std::string_view s);
void put_double(std::string& out, double d);
void put_int(std::string& out, long long v);
void put_uint(std::string& out, unsigned long long v);
void put_base64(std::string& out, const unsigned char* p, std::size_t n);
[[noreturn]] void too_deep();
[[noreturn]] void reserved_bytes_key();

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class T, class C, class A>
struct is_string_map<std::map<std::string, T, C, A>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
void put(std::string& out, const T& v, int depth);

template <class M>
void put_map(std::string& out, const M& m, int depth) {
  if (depth >= max_depth) too_deep();
  if (m.size() == 1 && m.begin()->first == "__bytes__") {
    using V = typename M::mapped_type;
    bool str = false;
    if constexpr (std::is_same_v<V, json>)
      str = m.begin()->second.is_string();
    else if constexpr (std::is_convertible_v<const V&, std::string_view>)
      str = true;
    if (str) reserved_bytes_key();
  }
  out.push_back('{');
  bool first = true;
  for (const auto& [k, x] : m) {
    if (!first) out.push_back(',');
    first = false;
    try {
      put_string(out, k);
      out.push_back(':');
      put(out, x, depth + 1);
    } catch (path_error& e) {
      e.path = key_path(k) + e.path;
      throw;
    }
  }
  out.push_back('}');
}

template <class T>
void put(std::string& out, const T& v, int depth) {
  if constexpr (std::is_same_v<T, json>) {
    put_json(out, v, depth);
  } else if constexpr (std::is_same_v<T, bool>) {
    out.append(v ? "true" : "false");
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    put_int(out, v);
  } else if constexpr (std::is_integral_v<T>) {
    put_uint(out, v);
  } else if constexpr (std::is_floating_point_v<T>) {
    put_double(out, static_cast<double>(v));
  } else if constexpr (std::is_same_v<T, tether::bytes>) {
    put_base64(out, v.data(), v.size());
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    put_string(out, std::string_view(v));
  } else if constexpr (is_optional<T>::value) {
    if (v)
      put(out, *v, depth);
    else
      out.append("null");
  } else if constexpr (is_string_map<T>::value) {
    put_map(out, v, depth);
  } else if constexpr (is_vector<T>::value) {
    if (depth >= max_depth) too_deep();
    out.push_back('[');
    std::size_t i = 0;
    for (const auto& x : v) {
      if (i) out.push_back(',');
      try {
        put(out, static_cast<const typename T::value_type&>(x), depth + 1);
      } catch (path_error& e) {
        e.path = index_path(i) + e.path;
        throw;
      }
      i++;
    }
    out.push_back(']');
  } else {
    static_assert(sizeof(T) == 0,
                  "tether: this type cannot cross the protocol; use bool, integers, double, std::string, tether::bytes, "
                  "std::vector, std::map<std::string, T>, std::optional or tether::json");
  }
}

struct reader {
  const char* p;
  const char* end;
  // Whose value is being read or written, for the error's path: an
  // argument's index, or one of these.
  static constexpr int value_arg = -1, in_call = -2;
  int arg = in_call;
  // The args hold only lists, integers of at most 19 digits, plain ASCII
  // strings and literals (the host checked): the fast lane below may read them.
  bool simple = false;

  // The fast lane for integer and boolean parameters: the next argument
  // into v, then the ',' after it (the ']' for the last). False, with p
  // anywhere, when the argument is of another kind or out of range, or the
  // count is off: the general reader then reads them all again from the
  // start and words the error (compiled once, with the host).
  bool fast_open();
  bool fast_integer(long long min, unsigned long long max, unsigned long long& v, bool last);
  bool fast_bool(bool& v, bool last);
  template <class T>
  static constexpr bool fast_type = std::is_integral_v<T>;
  template <class T>
  bool fast_read(T& out, bool last) {
    if constexpr (std::is_same_v<T, bool>) {
      return fast_bool(out, last);
    } else {
      using L = std::numeric_limits<T>;
      unsigned long long v;
      if (!fast_integer(L::min(), L::max(), v, last)) return false;
      out = static_cast<T>(v);
      return true;
    }
  }

  bool args_begin();  // at the args array: true if it has an element
  // After the arguments read: skips (and counts) any beyond want; throws
  // rejected when the count is not want.
  void args_end(const std::string& name, std::size_t want, std::size_t got, bool open);

  void ws() {
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  }
  json::kind peek();
  bool is_bytes_object();
  [[noreturn]] void mismatch(const char* want);
  std::string_view token() {
    const char* s = p;
    while (p < end && (*p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))) p++;
    return std::string_view(s, p - s);
  }
  std::string string();
  std::string bytes_value();  // at a bytes object
  // An integer in [min, max] (as its two's complement bits), else
  // path_error naming the range.
  unsigned long long integer(long long min, unsigned long long max);
  static double to_double(std::string_view number_token);
  void expect(char c) {
    ws();
    p++;  // the scanner checked it is c
    (void)c;
  }
  bool more(char close) {  // after an element: true if another follows
    ws();
    if (*p == ',') {
      p++;
      return true;
    }
    p++;  // close
    (void)close;
    return false;
  }
  bool empty(char close) {
    ws();
    if (*p == close) {
      p++;
      return true;
    }
    return false;
  }
  void skip();

  template <class T>
  void read(T& out) {
    if constexpr (std::is_same_v<T, json>) {
      out = read_json();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (peek() != json::kind::boolean) mismatch("a boolean");
      out = *p == 't';
      p += out ? 4 : 5;
    } else if constexpr (std::is_integral_v<T>) {
      using L = std::numeric_limits<T>;
      out = static_cast<T>(integer(L::min(), L::max()));
    } else if constexpr (std::is_floating_point_v<T>) {
      json::kind k = peek();
      if (k != json::kind::number && k != json::kind::integer) mismatch("a number");
      std::string_view t = token();
      double d = to_double(t);
      if (std::is_same_v<T, float> && (d > std::numeric_limits<float>::max() || d < -std::numeric_limits<float>::max()))
        throw path_error("", "number " + std::string(t.substr(0, 40)) + " is out of range for float");
      out = static_cast<T>(d);
    } else if constexpr (std::is_same_v<T, tether::bytes>) {
      if (peek() != json::kind::bytes) mismatch("bytes");
      std::string s = bytes_value();
      out.assign(s.begin(), s.end());
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (peek() != json::kind::string) mismatch("a string");
      out = string();
    } else if constexpr (is_optional<T>::value) {
      if (peek() == json::kind::null) {
        p += 4;
        out.reset();
      } else {
        typename T::value_type v{};
        read(v);
        out = std::move(v);
      }
    } else if constexpr (is_string_map<T>::value) {
      if (peek() != json::kind::object) mismatch("a map");
      out.clear();
      expect('{');
      if (empty('}')) return;
      do {
        ws();
        std::string k = string();
        ws();
        p++;  // ':'
        typename T::mapped_type v{};
        try {
          read(v);
        } catch (path_error& e) {
          e.path = key_path(k) + e.path;
          throw;
        }
        out.emplace(std::move(k), std::move(v));
      } while (more('}'));
    } else if constexpr (is_vector<T>::value) {
      if (peek() != json::kind::array) mismatch("a list");
      out.clear();
      expect('[');
      if (empty(']')) return;
      std::size_t i = 0;
      do {
        typename T::value_type v{};
        try {
          read(v);
        } catch (path_error& e) {
          e.path = index_path(i) + e.path;
          throw;
        }
        out.push_back(std::move(v));
        i++;
      } while (more(']'));
    } else {
      static_assert(sizeof(T) == 0,
                    "tether: this parameter type cannot cross the protocol; use bool, integers, double, std::string, "
                    "tether::bytes, std::vector, std::map<std::string, T>, std::optional or tether::json");
    }
  }

  json read_json();
};

inline std::string rooted(const std::string& root, const path_error& e) {
  return root + e.path + ": " + e.reason;
}

template <class T>
json json_of(const T& v) {
  if constexpr (std::is_same_v<T, json>) {
    return v;
  } else {
    std::string text;
    try {
      put(text, v, 0);
    } catch (path_error& e) {
      throw rejected(rooted("value", e));
    }
    reader r{text.data(), text.data() + text.size()};
    return r.read_json();
  }
}

// ---------------------------------------------------------------- registry

struct function_entry {
  void (*raw)();
  void (*invoke)(void (*raw)(), const std::string& name, reader& args, std::string& out);
};

// Makes fn callable as name (out of line: the registry's code is compiled
// once, with the host).
void add_function(const char* name, function_entry e);

// Reads args into the parameters, calls f and puts its result. Nothing
// here catches: a path_error escapes with r.arg telling whose it is (an
// argument's index, value_arg for the result, in_call for the function's
// own), and the host's answer() words the error; the messages are built
// there, compiled once.
template <class R, class... A, std::size_t... I>
void invoke_with(R (*f)(A...), const std::string& name, reader& r, std::string& out, std::index_sequence<I...>) {
  std::tuple<std::decay_t<A>...> args;
  bool fast = false;
  if constexpr (sizeof...(A) > 0 && (reader::fast_type<std::decay_t<A>> && ...)) {
    const char* start = r.p;
    fast = r.simple && r.fast_open() && (r.fast_read(std::get<I>(args), I + 1 == sizeof...(A)) && ...);
    if (!fast) r.p = start;
  }
  if (!fast) {
    bool open = r.args_begin();
    std::size_t got = 0;
    auto one = [&](auto& slot, int i) {
      if (!open) return;
      r.arg = i;
      r.read(slot);
      got++;
      open = r.more(']');
    };
    (one(std::get<I>(args), static_cast<int>(I)), ...);
    (void)one;  // a function of no parameters
    r.args_end(name, sizeof...(A), got, open);
  }
  r.arg = reader::in_call;
  if constexpr (std::is_void_v<R>) {
    f(std::get<I>(args)...);
    out.append("null", 4);
  } else {
    std::decay_t<R> v = f(std::get<I>(args)...);
    r.arg = reader::value_arg;
    put(out, v, 0);
  }
}

template <class R, class... A>
void invoke(void (*raw)(), const std::string& name, reader& r, std::string& out) {
  invoke_with(reinterpret_cast<R (*)(A...)>(raw), name, r, out, std::index_sequence_for<A...>{});
}

struct registrar {
  template <class R, class... A>
  registrar(const char* name, R (*fn)(A...)) {
    add_function(name, function_entry{reinterpret_cast<void (*)()>(fn), &invoke<R, A...>});
  }
};

}  // namespace detail

template <class T>
T json::get() const {
  if constexpr (std::is_same_v<T, json>) {
    return *this;
  } else {
    std::string text = dump();
    detail::reader r{text.data(), text.data() + text.size()};
    T out{};
    try {
      r.read(out);
    } catch (detail::path_error& e) {
      throw rejected(detail::rooted("value", e));
    }
    return out;
  }
}

// Calls the evaluator's capability name with args; see call_capability.
json call_capability_values(const std::string& name, const std::vector<json>& args);

// Calls the evaluator's capability name(args...) and returns its value;
// each argument converts as a result would.
template <class... A>
json call_capability(const std::string& name, const A&... args) {
  return call_capability_values(name, std::vector<json>{detail::json_of(args)...});
}

}  // namespace tether

#define TETHER_CAT2(a, b) a##b
#define TETHER_CAT(a, b) TETHER_CAT2(a, b)
// TETHER_EXPORT(fn): fn is callable by the evaluator under its own name.
#define TETHER_EXPORT(fn) static const ::tether::detail::registrar TETHER_CAT(tether_export_, __LINE__)(#fn, &fn)
// TETHER_EXPORT_AS("name", fn): fn is callable as name.
#define TETHER_EXPORT_AS(name, fn) static const ::tether::detail::registrar TETHER_CAT(tether_export_, __LINE__)(name, &fn)


#endif  // TETHER_HPP
