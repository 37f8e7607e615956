// tether_host.cpp: the runtime of the C++ solution host (see tether.hpp):
// the protocol's codec, the frame loop, the log pipes and main. Compiled
// with the solution (or once, as an object linked to it).
#include "tether.hpp"

#include <algorithm>
#include <charconv>
#include <atomic>
#include <forward_list>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <typeinfo>

#include <cxxabi.h>
#include <stdio_ext.h>
#include <sys/ioctl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

namespace tether {
namespace detail {

// ---------------------------------------------------------------- encoding

void put_escaped(std::string& out, std::string_view s) {
  // Canonical strings: UTF-8 kept, only '"', '\\' and control characters escaped.
  static const char hex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when invalid
// (overlong forms, surrogates and code points beyond U+10FFFF included).
int utf8_seq(const unsigned char* s, std::size_t n, std::size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return (i + 1 < n && (s[i + 1] & 0xC0) == 0x80) ? 2 : 0;
  if (c < 0xF0) {
    if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[i + 1] < 0xA0) return 0;
    if (c == 0xED && s[i + 1] >= 0xA0) return 0;
    return 3;
  }
  if (c < 0xF5) {
    if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && s[i + 1] < 0x90) return 0;
    if (c == 0xF4 && s[i + 1] >= 0x90) return 0;
    return 4;
  }
  return 0;
}

bool valid_utf8(std::string_view sv) {
  auto s = reinterpret_cast<const unsigned char*>(sv.data());
  std::size_t n = sv.size();
  for (std::size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      i++;
      continue;
    }
    int k = utf8_seq(s, n, i);
    if (!k) return false;
    i += k;
  }
  return true;
}

// s with invalid UTF-8 replaced by U+FFFD (log text must be valid).
std::string utf8_replace(std::string_view sv) {
  if (valid_utf8(sv)) return std::string(sv);
  auto s = reinterpret_cast<const unsigned char*>(sv.data());
  std::string out;
  for (std::size_t i = 0; i < sv.size();) {
    int k = utf8_seq(s, sv.size(), i);
    if (k) {
      out.append(sv.data() + i, k);
      i += k;
    } else {
      out.append("\xEF\xBF\xBD");
      i++;
    }
  }
  return out;
}

std::string key_path(const std::string& k) {
  std::string out = "[";
  put_escaped(out, k);
  return out + "]";
}

void too_deep() { throw path_error("", "nesting too deep (more than 512)"); }
void reserved_bytes_key() {
  throw path_error("", "a map whose only key is \"__bytes__\" with a string value is reserved for bytes");
}

void put_string(std::string& out, std::string_view s) {
  if (!valid_utf8(s)) throw path_error("", "string is not valid UTF-8");
  put_escaped(out, s);
}

void put_double(std::string& out, double d) {
  // Python's repr(float): shortest round-trip digits, positional when the
  // decimal exponent x is in -4 <= x < 16, else d.ddde+XX.
  if (d != d) throw path_error("", "NaN is not transferable");
  if (d == std::numeric_limits<double>::infinity()) throw path_error("", "Infinity is not transferable");
  if (d == -std::numeric_limits<double>::infinity()) throw path_error("", "-Infinity is not transferable");
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, r.ptr - buf);
  std::size_t e = sci.find('e');
  bool neg = sci[0] == '-';
  std::string digits;
  for (std::size_t i = neg; i < e; i++)
    if (sci[i] != '.') digits.push_back(sci[i]);
  int x = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (neg) out.push_back('-');
  if (x >= -4 && x < 16) {
    if (x < 0) {
      out.append("0.");
      out.append(static_cast<std::size_t>(-x - 1), '0');
      out.append(digits);
    } else if (static_cast<std::size_t>(x) + 1 >= digits.size()) {
      out.append(digits);
      out.append(x + 1 - digits.size(), '0');
      out.append(".0");
    } else {
      out.append(digits, 0, x + 1);
      out.push_back('.');
      out.append(digits, x + 1, std::string::npos);
    }
    return;
  }
  out.push_back(digits[0]);
  if (digits.size() > 1) {
    out.push_back('.');
    out.append(digits, 1, std::string::npos);
  }
  out.push_back('e');
  out.push_back(x < 0 ? '-' : '+');
  int ax = x < 0 ? -x : x;
  if (ax < 10) out.push_back('0');
  out.append(std::to_string(ax));
}

void put_base64(std::string& out, const unsigned char* p, std::size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.append("{\"__bytes__\":\"");
  std::size_t i = 0;
  for (; i + 2 < n; i += 3) {
    unsigned v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
    out.push_back(tab[v >> 18]);
    out.push_back(tab[(v >> 12) & 63]);
    out.push_back(tab[(v >> 6) & 63]);
    out.push_back(tab[v & 63]);
  }
  if (i + 1 == n) {
    unsigned v = p[i] << 16;
    out.push_back(tab[v >> 18]);
    out.push_back(tab[(v >> 12) & 63]);
    out.append("==");
  } else if (i + 2 == n) {
    unsigned v = (p[i] << 16) | (p[i + 1] << 8);
    out.push_back(tab[v >> 18]);
    out.push_back(tab[(v >> 12) & 63]);
    out.push_back(tab[(v >> 6) & 63]);
    out.push_back('=');
  }
  out.append("\"}");
}

void put_json(std::string& out, const json& v, int depth) {
    using K = json::kind;
    const auto& j = v;
    switch (j.type()) {
      case K::null: out.append("null"); return;
      case K::boolean: out.append(j.as_bool() ? "true" : "false"); return;
      case K::integer: {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, j.as_int());
        out.append(buf, r.ptr);
        return;
      }
      case K::big_integer: {
        std::string t = j.text();
        std::size_t d = t.size() - (!t.empty() && t[0] == '-');
        if (d > static_cast<std::size_t>(max_int_digits))
          throw path_error("", "integer has more than 4300 digits");
        out.append(t);
        return;
      }
      case K::number: put_double(out, j.as_double()); return;
      case K::string: put_string(out, j.as_string()); return;
      case K::bytes: {
        const std::string& s = detail_bytes(j);
        put_base64(out, reinterpret_cast<const unsigned char*>(s.data()), s.size());
        return;
      }
      case K::array: put(out, j.as_array(), depth); return;
      case K::object: put_map(out, j.as_object(), depth); return;
    }
}

// ---------------------------------------------------------------- decoding

// plain_char[c]: byte c stands for itself inside a JSON string (printable
// ASCII but '"' and '\\').
constexpr struct plain_chars {
  bool v[256] = {};
  constexpr plain_chars() {
    for (int c = 0x20; c < 0x80; c++) v[c] = c != '"' && c != '\\';
  }
  constexpr bool operator[](unsigned char c) const { return v[c]; }
} plain_char;

// One pass over a JSON text that checks everything the codec demands
// (docs/protocol/judge.md, "Transferable values"). Syntax errors stop it
// (ok() false); a codec error (NaN, a duplicate key, bad base64, ...) is
// kept in codec_error and the scan goes on, so that a frame's type and id
// can still be read, as the Python host does.
struct scanner {
  const char* p;
  const char* end;
  std::string codec_error;
  bool syntax_ok = true;

  void codec(const std::string& why) {
    if (codec_error.empty()) codec_error = why;
  }
  bool fail() { return syntax_ok = false; }
  void ws() {
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  }
  bool lit(const char* s, std::size_t n) {
    if (static_cast<std::size_t>(end - p) < n || std::memcmp(p, s, n) != 0) return fail();
    p += n;
    return true;
  }
  static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // A string at p (the opening quote); its decoded text into out when out
  // is not null.
  bool str(std::string* out) {
    p++;
    const char* run = p;
    for (;;) {
      while (p < end && plain_char[static_cast<unsigned char>(*p)]) p++;  // the common bytes, fast
      if (p >= end) return fail();
      unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') {
        if (out) out->append(run, p);
        p++;
        return true;
      }
      if (c < 0x20) return fail();
      if (c >= 0x80) {
        int k = utf8_seq(reinterpret_cast<const unsigned char*>(p), end - p, 0);
        if (!k) {
          codec("invalid UTF-8");
          k = 1;
        }
        p += k;
        continue;
      }
      if (c != '\\') {
        p++;
        continue;
      }
      if (out) out->append(run, p);
      p++;
      if (p >= end) return fail();
      char e = *p++;
      switch (e) {
        case '"': case '\\': case '/':
          if (out) out->push_back(e);
          break;
        case 'b': if (out) out->push_back('\b'); break;
        case 'f': if (out) out->push_back('\f'); break;
        case 'n': if (out) out->push_back('\n'); break;
        case 'r': if (out) out->push_back('\r'); break;
        case 't': if (out) out->push_back('\t'); break;
        case 'u': {
          long cp = u4();
          if (cp < 0) return fail();
          if (cp >= 0xD800 && cp < 0xDC00) {
            const char* save = p;
            long lo = -1;
            if (end - p >= 2 && p[0] == '\\' && p[1] == 'u') {
              p += 2;
              lo = u4();
              if (lo < 0) return fail();
            }
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              codec("lone surrogate escape in a string");
              p = lo < 0 ? save : p - 6;  // read the next escape on its own
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            codec("lone surrogate escape in a string");
            cp = 0xFFFD;
          }
          if (out) put_utf8(*out, cp);
          break;
        }
        default: return fail();
      }
      run = p;
    }
  }
  long u4() {
    if (end - p < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
      int h = hexval(p[i]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    p += 4;
    return v;
  }
  static void put_utf8(std::string& o, long cp) {
    if (cp < 0x80) {
      o.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      o.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      o.push_back(static_cast<char>(0x80 | (cp & 63)));
    } else if (cp < 0x10000) {
      o.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      o.push_back(static_cast<char>(0x80 | ((cp >> 6) & 63)));
      o.push_back(static_cast<char>(0x80 | (cp & 63)));
    } else {
      o.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      o.push_back(static_cast<char>(0x80 | ((cp >> 12) & 63)));
      o.push_back(static_cast<char>(0x80 | ((cp >> 6) & 63)));
      o.push_back(static_cast<char>(0x80 | (cp & 63)));
    }
  }
  // A number at p; is_int tells whether it had no fraction or exponent.
  bool number(bool* is_int) {
    const char* s = p;
    if (p < end && *p == '-') p++;
    if (p < end && *p == 'I') {  // Python's -Infinity
      if (!lit("Infinity", 8)) return false;
      codec("-Infinity is not transferable");
      *is_int = false;
      return true;
    }
    if (p >= end || *p < '0' || *p > '9') return fail();
    if (*p == '0')
      p++;
    else
      while (p < end && *p >= '0' && *p <= '9') p++;
    bool integer = true;
    if (p < end && *p == '.') {
      integer = false;
      p++;
      if (p >= end || *p < '0' || *p > '9') return fail();
      while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      integer = false;
      p++;
      if (p < end && (*p == '+' || *p == '-')) p++;
      if (p >= end || *p < '0' || *p > '9') return fail();
      while (p < end && *p >= '0' && *p <= '9') p++;
    }
    *is_int = integer;
    if (integer) {
      std::size_t digits = (p - s) - (*s == '-');
      if (digits > static_cast<std::size_t>(max_int_digits))
        codec("integer has " + std::to_string(digits) + " digits, more than 4300");
    } else {
      double d;
      if (!parse_double(s, p, &d)) codec("number " + std::string(s, std::min<std::size_t>(p - s, 40)) + " overflows a float: not transferable");
    }
    return true;
  }
  // A list or map nested deeper than the limit: a codec error, and the
  // value at p is skipped without checking it (no deep recursion).
  bool skip_deep() {
    codec("nesting too deep (more than 512)");
    int depth = 0;
    while (p < end) {
      char c = *p;
      if (c == '"') {
        if (!str(nullptr)) return false;
        continue;
      }
      p++;
      if (c == '[' || c == '{') depth++;
      else if (c == ']' || c == '}') {
        if (--depth == 0) return true;
      }
    }
    return fail();
  }
  // At a list's or map's opening bracket: consumes it and the white space
  // after it, and close too when it follows at once (the list or map is
  // empty).
  bool opens_empty(char close) {
    p++;
    ws();
    if (p < end && *p == close) {
      p++;
      return true;
    }
    return false;
  }
  bool value(int depth) {
    ws();
    if (p >= end) return fail();
    switch (*p) {
      case '{': return object(depth + 1, static_cast<void (*)(std::string_view, std::string_view)>(nullptr));
      case '[': {
        if (depth + 1 > max_depth) return skip_deep();
        if (opens_empty(']')) return true;
        for (;;) {
          if (!value(depth + 1)) return false;
          ws();
          if (p >= end) return fail();
          if (*p == ',') {
            p++;
            continue;
          }
          if (*p == ']') {
            p++;
            return true;
          }
          return fail();
        }
      }
      case '"': return str(nullptr);
      case 't': return lit("true", 4);
      case 'f': return lit("false", 5);
      case 'n': return lit("null", 4);
      case 'N':
        if (!lit("NaN", 3)) return false;
        codec("NaN is not transferable");
        return true;
      case 'I':
        if (!lit("Infinity", 8)) return false;
        codec("Infinity is not transferable");
        return true;
      default: {
        bool is_int;
        return number(&is_int);
      }
    }
  }
  // An object; with members, each top-level member's key and value span
  // is reported to it (the frame's own members).
  template <class F>
  bool object(int depth, F members) {
    if (depth > max_depth) return skip_deep();
    if (opens_empty('}')) return true;
    // Keys of this object, for the duplicate check: views of the text when
    // they hold no escape (the common case: no copy, no allocation), else
    // of their decoded copies in owned; the first few without a heap
    // allocation (a frame has four or five).
    std::string_view few[8];
    std::vector<std::string_view> more;
    std::forward_list<std::string> owned;  // stable addresses for the views
    std::size_t nkeys = 0;
    auto key_at = [&](std::size_t i) -> std::string_view { return i < 8 ? few[i] : more[i - 8]; };
    bool single_bytes_key = false;
    const char* first_value = nullptr;
    const char* first_value_end = nullptr;
    for (;;) {
      ws();
      if (p >= end || *p != '"') return fail();
      const char* ks = p;
      if (!str(nullptr)) return false;
      std::string_view key(ks + 1, p - ks - 2);
      if (std::memchr(key.data(), '\\', key.size())) {
        owned.emplace_front();
        scanner again{ks, p, {}, true};
        again.str(&owned.front());
        key = owned.front();
      }
      ws();
      if (p >= end || *p != ':') return fail();
      p++;
      ws();
      const char* vs = p;
      if (!value(depth)) return false;
      if constexpr (std::is_pointer_v<F>) {
        if (members) (*members)(key, std::string_view(vs, p - vs));
      } else {
        members(key, std::string_view(vs, p - vs));
      }
      if (nkeys == 0) {
        single_bytes_key = key == "__bytes__" && *vs == '"';
        first_value = vs;
        first_value_end = p;
      }
      if (nkeys < 8)
        few[nkeys] = key;
      else
        more.push_back(key);
      nkeys++;
      ws();
      if (p >= end) return fail();
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == '}') {
        p++;
        break;
      }
      return fail();
    }
    if (nkeys > 1) {
      // Duplicate keys are refused (after unescaping).
      const std::string_view* dup = nullptr;
      if (nkeys <= 8) {
        for (std::size_t i = 1; i < nkeys && !dup; i++)
          for (std::size_t j = 0; j < i; j++)
            if (few[i] == few[j]) {
              dup = &few[i];
              break;
            }
      } else {
        std::vector<std::string_view> sorted;
        sorted.reserve(nkeys);
        for (std::size_t i = 0; i < nkeys; i++) sorted.push_back(key_at(i));
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 1; i < sorted.size() && !dup; i++)
          if (sorted[i] == sorted[i - 1]) {
            few[0] = sorted[i];
            dup = &few[0];
          }
      }
      if (dup) {
        std::string shown;
        put_escaped(shown, *dup);
        codec("duplicate key " + shown);
      }
    } else if (single_bytes_key) {
      scanner sub{first_value, first_value_end, {}, true};
      std::string b64;
      sub.str(&b64);
      if (!base64_canonical(b64, nullptr)) {
        std::string shown;
        put_escaped(shown, b64.substr(0, 40));
        codec("invalid base64 in __bytes__: " + shown);
      }
    }
    return true;
  }
  static bool parse_double(const char* s, const char* e, double* out) {
    auto r = std::from_chars(s, e, *out);
    if (r.ec == std::errc()) return true;
    // Out of range: an underflow is a zero, an overflow is not transferable.
    std::string copy(s, e);
    double d = std::strtod(copy.c_str(), nullptr);
    if (d == std::numeric_limits<double>::infinity() || d == -std::numeric_limits<double>::infinity() || d != d) return false;
    *out = d;
    return true;
  }
  // Decodes canonical standard base64 with padding (what every SDK writes).
  static bool base64_canonical(const std::string& s, std::string* out) {
    if (s.size() % 4) return false;
    auto val = [](char c) -> int {
      if (c >= 'A' && c <= 'Z') return c - 'A';
      if (c >= 'a' && c <= 'z') return c - 'a' + 26;
      if (c >= '0' && c <= '9') return c - '0' + 52;
      if (c == '+') return 62;
      if (c == '/') return 63;
      return -1;
    };
    for (std::size_t i = 0; i < s.size(); i += 4) {
      bool last = i + 4 == s.size();
      int a = val(s[i]), b = val(s[i + 1]);
      if (a < 0 || b < 0) return false;
      int c = s[i + 2] == '=' && last ? -2 : val(s[i + 2]);
      int d = s[i + 3] == '=' && last ? -2 : val(s[i + 3]);
      if (c == -1 || d == -1 || (c == -2 && d != -2)) return false;
      if (c == -2) {
        if (b & 15) return false;
        if (out) out->push_back(static_cast<char>((a << 2) | (b >> 4)));
      } else if (d == -2) {
        if (c & 3) return false;
        if (out) {
          out->push_back(static_cast<char>((a << 2) | (b >> 4)));
          out->push_back(static_cast<char>(((b & 15) << 4) | (c >> 2)));
        }
      } else if (out) {
        out->push_back(static_cast<char>((a << 2) | (b >> 4)));
        out->push_back(static_cast<char>(((b & 15) << 4) | (c >> 2)));
        out->push_back(static_cast<char>(((c & 3) << 6) | d));
      }
    }
    return true;
  }
};

// Reads typed values from a text the scanner accepted (so syntax and codec
// rules hold); only the shape can still be wrong for the C++ type.
json::kind reader::peek() {
    ws();
    switch (*p) {
      case '{': return is_bytes_object() ? json::kind::bytes : json::kind::object;
      case '[': return json::kind::array;
      case '"': return json::kind::string;
      case 't': case 'f': return json::kind::boolean;
      case 'n': return json::kind::null;
      default: {
        const char* q = p;
        if (*q == '-') q++;
        while (q < end && *q >= '0' && *q <= '9') q++;
        return (q < end && (*q == '.' || *q == 'e' || *q == 'E')) ? json::kind::number : json::kind::integer;
      }
    }
  }

bool reader::is_bytes_object() {
    scanner s{p + 1, end, {}, true};
    s.ws();
    if (s.p >= end || *s.p != '"') return false;
    std::string key;
    s.str(&key);
    if (key != "__bytes__") return false;
    s.ws();
    s.p++;  // ':'
    s.ws();
    if (*s.p != '"') return false;
    s.str(nullptr);
    s.ws();
    return *s.p == '}';
  }

std::string reader::string() {
    std::string s;
    scanner sc{p, end, {}, true};
    sc.str(&s);
    p = sc.p;
    return s;
  }

void reader::skip() {
    scanner s{p, end, {}, true};
    s.value(0);
    p = s.p;
  }

json reader::read_json() {
    switch (peek()) {
      case json::kind::null: p += 4; return json();
      case json::kind::boolean: {
        bool b = *p == 't';
        p += b ? 4 : 5;
        return json(b);
      }
      case json::kind::integer:
      case json::kind::big_integer: {
        std::string_view t = token();
        long long v;
        auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return json(v);
        return json::big_integer(std::string(t));
      }
      case json::kind::number: {
        std::string_view t = token();
        double d = 0;
        scanner::parse_double(t.data(), t.data() + t.size(), &d);
        return json(d);
      }
      case json::kind::string: return json(string());
      case json::kind::bytes: {
        p++;
        ws();
        string();
        ws();
        p++;
        ws();
        std::string b64 = string(), raw;
        ws();
        p++;
        scanner::base64_canonical(b64, &raw);
        return json::raw_bytes(std::move(raw));
      }
      case json::kind::array: {
        json::array_t a;
        p++;
        if (!empty(']')) do
            a.push_back(read_json());
          while (more(']'));
        return json(std::move(a));
      }
      case json::kind::object: {
        json::object_t o;
        p++;
        if (!empty('}')) do {
            ws();
            std::string k = string();
            ws();
            p++;
            o.emplace(std::move(k), read_json());
          } while (more('}'));
        return json(std::move(o));
      }
    }
    return json();
  }

void reader::mismatch(const char* want) {
    throw path_error("", std::string("expected ") + want + ", got " + json::kind_name(peek()));
  }

std::string reader::bytes_value() {
  json j = read_json();
  return detail_bytes(j);
}

bool reader::args_begin() {
  ws();
  if (p >= end || *p != '[') throw rejected("args must be an array");
  p++;
  return !empty(']');
}

void reader::args_end(const std::string& name, std::size_t want, std::size_t got, bool open) {
  if (open) {
    do {
      skip();
      got++;
    } while (more(']'));
  }
  if (got != want)
    throw rejected(name + "() takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") + " but " +
                   std::to_string(got) + (got == 1 ? " was" : " were") + " given");
}

unsigned long long reader::integer(long long min, unsigned long long max) {
  ws();
  {
    // The usual integer, of at most 19 digits (below 2^63), in one pass;
    // anything else (a longer one, a float, another kind) the general way
    // below, which words the errors.
    const char* q = p;
    bool neg = q < end && *q == '-';
    q += neg;
    const char* digits = q;
    unsigned long long mag = 0;
    while (q < end && *q >= '0' && *q <= '9' && q - digits < 19) mag = mag * 10 + static_cast<unsigned>(*q++ - '0');
    if (q > digits && (q >= end || (!(*q >= '0' && *q <= '9') && *q != '.' && *q != 'e' && *q != 'E'))) {
      if (!neg && mag <= max) {
        p = q;
        return mag;
      }
      // -mag >= min, for mag >= 1: mag - 1 <= -(min + 1)
      if (neg && (mag == 0 || (min < 0 && mag - 1 <= static_cast<unsigned long long>(-(min + 1))))) {
        p = q;
        return 0 - mag;
      }
    }
  }
  if (peek() != json::kind::integer) mismatch("an integer");
  std::string_view t = token();
  bool neg = t[0] == '-';
  unsigned long long mag = 0;
  bool over = t.size() - neg > 20;
  for (std::size_t i = neg; i < t.size() && !over; i++) {
    unsigned d = t[i] - '0';
    if (mag > (std::numeric_limits<unsigned long long>::max() - d) / 10) over = true;
    mag = mag * 10 + d;
  }
  if (neg && mag == 0) return 0;
  if (!over) {
    if (!neg && mag <= max) return mag;
    // -mag >= min, for mag >= 1: mag - 1 <= -(min + 1)
    if (neg && min < 0 && mag - 1 <= static_cast<unsigned long long>(-(min + 1))) return 0 - mag;
  }
  std::string shown(t.substr(0, 40));
  if (t.size() > 40) shown += "...";
  throw path_error("", "integer " + shown + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

bool reader::fast_open() {
  ws();
  if (p >= end || *p != '[') return false;
  p++;
  return true;
}

// (See tether.hpp.) The text is simple (simple_value), so a number here is
// an integer of at most 19 digits (below 2^63).
bool reader::fast_integer(long long min, unsigned long long max, unsigned long long& v, bool last) {
  ws();
  bool neg = p < end && *p == '-';
  p += neg;
  if (p >= end || *p < '0' || *p > '9') return false;
  unsigned long long mag = 0;
  while (p < end && *p >= '0' && *p <= '9') mag = mag * 10 + static_cast<unsigned>(*p++ - '0');
  if (!neg && mag <= max)
    v = mag;
  else if (neg && (mag == 0 || (min < 0 && mag - 1 <= static_cast<unsigned long long>(-(min + 1)))))
    v = 0 - mag;
  else
    return false;
  ws();
  return p < end && *p++ == (last ? ']' : ',');
}

bool reader::fast_bool(bool& v, bool last) {
  ws();
  if (p < end && *p == 't')
    v = true, p += 4;
  else if (p < end && *p == 'f')
    v = false, p += 5;
  else
    return false;
  ws();
  return p < end && *p++ == (last ? ']' : ',');
}

void put_int(std::string& out, long long v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void put_uint(std::string& out, unsigned long long v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

double reader::to_double(std::string_view t) {
  double d = 0;
  scanner::parse_double(t.data(), t.data() + t.size(), &d);
  return d;
}

// ---------------------------------------------------------------- frames

// The members of one frame the host looks at, as raw JSON spans of the
// line (last one wins, as in Python's json).
struct frame {
  std::string_view type, id, fn, args, value, code, message;
  std::string codec_error;  // why the codec refuses the frame, if it does
  // A canonical call (parse_canonical_call): id and fn are plain ASCII
  // strings, so their texts are their spans without the quotes and the id
  // is echoed as its span, with no decoding or escaping.
  bool plain = false;
  bool simple = false;  // args passed simple_value
};

// The text of a plain string's span (see frame::plain).
inline std::string_view plain_text(std::string_view raw) { return raw.substr(1, raw.size() - 2); }

inline bool json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool digit(char c) { return c >= '0' && c <= '9'; }

// The end of the value at p when it is made only of what the codec cannot
// refuse: lists (nested at most 64 deep), integers of at most 19 digits,
// strings of printable ASCII without escapes, true, false and null; else
// nullptr, and the full scanner decides. The usual arguments are such
// values, and this one pass costs a fraction of the scanner's.
const char* simple_value(const char* p, const char* end) {
  int depth = 0;
  for (;;) {
    while (p < end && json_ws(*p)) p++;
    if (p >= end) return nullptr;
    char c = *p;
    if (c == '[') {
      if (++depth > 64) return nullptr;
      p++;
      while (p < end && json_ws(*p)) p++;
      if (p < end && *p == ']') {
        p++;
        depth--;
      } else {
        continue;  // the list's first element
      }
    } else if (c == '"') {
      p++;
      while (p < end && plain_char[static_cast<unsigned char>(*p)]) p++;
      if (p >= end || *p != '"') return nullptr;
      p++;
    } else if (c == '-' || digit(c)) {
      const char* s = p;
      if (c == '-') p++;
      if (p >= end || !digit(*p)) return nullptr;
      if (*p == '0')
        p++;
      else
        while (p < end && digit(*p)) p++;
      if (p - s - (c == '-') > 19 || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) return nullptr;
    } else if (c == 't' && end - p >= 4 && std::memcmp(p, "true", 4) == 0) {
      p += 4;
    } else if (c == 'f' && end - p >= 5 && std::memcmp(p, "false", 5) == 0) {
      p += 5;
    } else if (c == 'n' && end - p >= 4 && std::memcmp(p, "null", 4) == 0) {
      p += 4;
    } else {
      return nullptr;
    }
    // After a value: the next element, or the ends of lists.
    for (;;) {
      if (depth == 0) return p;
      while (p < end && json_ws(*p)) p++;
      if (p >= end) return nullptr;
      if (*p == ',') {
        p++;
        break;
      }
      if (*p != ']') return nullptr;
      p++;
      depth--;
    }
  }
}

// False when line is not a JSON object (plain text: ignored).
// The call frame as every SDK and the judge write it, compact, members in
// this order: {"type":"call","id":"ID","fn":"FN","args":[...]}, ID and FN
// plain ASCII. Read by its fixed text, args by the full scanner; false
// for anything else, which parse_frame reads the general way (the same
// members result either way).
bool parse_canonical_call(std::string_view line, frame& f) {
  using namespace std::string_view_literals;
  const char* p = line.data();
  const char* end = p + line.size();
  auto lit = [&](std::string_view want) {
    if (static_cast<std::size_t>(end - p) < want.size() || std::memcmp(p, want.data(), want.size()) != 0) return false;
    p += want.size();
    return true;
  };
  auto plain = [&](std::string_view& out) {  // at the opening quote's next byte
    const char* s = p - 1;
    while (p < end && plain_char[static_cast<unsigned char>(*p)]) p++;
    if (p >= end || *p != '"') return false;
    p++;
    out = std::string_view(s, p - s);
    return true;
  };
  if (!lit("{\"type\":\"call\",\"id\":\""sv)) return false;
  f.type = line.substr(8, 6);
  if (!plain(f.id) || !lit(",\"fn\":\""sv) || !plain(f.fn) || !lit(",\"args\":["sv)) return false;
  f.plain = true;
  if (const char* e = simple_value(p - 1, end); e && end - e == 1 && *e == '}') {
    f.args = std::string_view(p - 1, e - (p - 1));
    f.simple = true;
    return true;
  }
  scanner s{p - 1, end, {}, true};
  const char* args = s.p;
  if (!s.value(1) || !s.syntax_ok || s.end - s.p != 1 || *s.p != '}') return false;
  f.args = std::string_view(args, s.p - args);
  f.codec_error = std::move(s.codec_error);
  return true;
}

bool parse_frame(std::string_view line, frame& f) {
  f = frame{};
  if (parse_canonical_call(line, f)) return true;
  f = frame{};
  scanner s{line.data(), line.data() + line.size(), {}, true};
  s.ws();
  if (s.p >= s.end || *s.p != '{') return false;
  auto members = [&f](std::string_view key, std::string_view v) {
    using namespace std::string_view_literals;  // lengths known: no strlen per key
    if (key == "type"sv) f.type = v;
    else if (key == "id"sv) f.id = v;
    else if (key == "fn"sv) f.fn = v;
    else if (key == "args"sv) f.args = v;
    else if (key == "value"sv) f.value = v;
    else if (key == "code"sv) f.code = v;
    else if (key == "message"sv) f.message = v;
  };
  if (!s.object(1, members)) return false;
  s.ws();
  if (s.p != s.end || !s.syntax_ok) return false;
  f.codec_error = std::move(s.codec_error);
  return true;
}

// The string a raw JSON span holds; false if it is not a string.
bool string_of(std::string_view raw, std::string& out) {
  out.clear();
  if (raw.empty() || raw[0] != '"') return false;
  scanner s{raw.data(), raw.data() + raw.size(), {}, true};
  return s.str(&out) && s.codec_error.empty();
}

// The text of a raw JSON span that is a string, as a view: of the span
// itself when it is plain ASCII without escapes (ids and names almost
// always are), else of its decoded copy in scratch. False if it is not a
// string the codec accepts.
bool text_of(std::string_view raw, std::string& scratch, std::string_view& out) {
  if (raw.size() >= 2 && raw.front() == '"') {
    std::string_view in = raw.substr(1, raw.size() - 2);
    bool plain = true;
    for (char c : in)
      if (c == '\\' || static_cast<unsigned char>(c) >= 0x80) {
        plain = false;
        break;
      }
    if (plain) {
      out = in;
      return true;
    }
  }
  if (!string_of(raw, scratch)) return false;
  out = scratch;
  return true;
}

// The exported functions by name (std::less<>: found by a string_view).
std::map<std::string, function_entry, std::less<>>& registry() {
  static std::map<std::string, function_entry, std::less<>> r;
  return r;
}

void add_function(const char* name, function_entry e) { registry()[name] = e; }

// ---------------------------------------------------------------- the host

struct lock_guard {
  pthread_mutex_t* m;
  explicit lock_guard(pthread_mutex_t* mu) : m(mu) { pthread_mutex_lock(m); }
  ~lock_guard() { pthread_mutex_unlock(m); }
};

struct host_state {
  int in_fd = -1, out_fd = -1, real_err = -1;
  int log_fd[2] = {-1, -1};  // read ends of the pipes on fd 1 and fd 2
  bool running = false;

  // Input: whoever needs a frame and finds none reads (one reader at a time).
  pthread_mutex_t in_mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t in_cv = PTHREAD_COND_INITIALIZER;
  std::string buf;
  std::size_t pos = 0;
  bool eof = false, reading = false, skipping = false;
  std::vector<std::string> queued;  // call lines read by another thread, in order
  std::size_t queued_head = 0;
  std::map<std::string, std::string> answers;  // capability id -> answer line ("" while waiting)
  bool busy = false;                            // the main thread runs a call
  unsigned long busy_seq = 0;

  // Output: one buffer, written whole before anyone blocks.
  pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
  std::string out;
  bool started = false;  // main wrote ready: the buffer may be flushed

  pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
  std::string log_carry[2];
  std::atomic<bool> carry_pending{false};  // a log_carry is not empty
  pthread_t main_thread{};  // an unfinished UTF-8 sequence per stream

  unsigned long long id_state = 0;
};

// Made before everything else of the process (the setup below runs at the
// same priority, later in this file), so state() needs no guard of a
// function's static on every call.
host_state host_state_ __attribute__((init_priority(101)));
inline host_state& state() { return host_state_; }

void write_all(int fd, const char* p, std::size_t n) {
  while (n) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd w{fd, POLLOUT, 0};
        ::poll(&w, 1, -1);
        continue;
      }
      ::_exit(0);  // the judge closed the channel: nobody is left to answer
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

void flush_out() {
  host_state& h = state();
  lock_guard g(&h.out_mu);
  if (!h.started || h.out.empty()) return;
  write_all(h.out_fd, h.out.data(), h.out.size());
  h.out.clear();
  if (h.out.capacity() > (4u << 20)) h.out.shrink_to_fit();
}

void append_out(const std::string& line) {
  host_state& h = state();
  lock_guard g(&h.out_mu);
  h.out.append(line);
}

// append_out for a line the caller no longer needs: when nothing is owed
// (one call in flight), the buffers trade places instead of a copy.
void move_out(std::string& line) {
  host_state& h = state();
  lock_guard g(&h.out_mu);
  if (h.out.empty())
    h.out.swap(line);
  else
    h.out.append(line);
}

// Turns output of stream (0 stdout, 1 stderr) into log frames. Whole
// lines go at once; a partial line waits for its newline, or for the end of
// the call (final), as in the Python host; an unfinished UTF-8 sequence
// waits for its next bytes.
void emit_log(int stream, const char* p, std::size_t n, bool final) {
  host_state& h = state();
  std::string& text = h.log_carry[stream];
  text.append(p, n);
  const std::size_t chunk = 64 * 1024;
  std::size_t cut = text.size();
  if (!final && cut < chunk) {
    if (n > 0 && !std::memchr(p, '\n', n)) {  // no new line ended: nothing to send yet
      h.carry_pending.store(true, std::memory_order_relaxed);
      return;
    }
    std::size_t nl = text.rfind('\n');
    cut = nl == std::string::npos ? 0 : nl + 1;
  }
  // Never cut inside a UTF-8 sequence.
  std::size_t back = 0;
  while (back < 3 && back < cut && (static_cast<unsigned char>(text[cut - 1 - back]) & 0xC0) == 0x80) back++;
  if (back < cut) {
    unsigned char lead = static_cast<unsigned char>(text[cut - 1 - back]);
    std::size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (lead >= 0xC0 && need > back + 1) cut = cut - 1 - back;
  }
  if (cut == 0) {
    h.carry_pending.store(true, std::memory_order_relaxed);
    return;
  }
  for (std::size_t i = 0; i < cut; i += chunk) {
    std::string frame = "{\"type\":\"log\",\"stream\":\"";
    frame += stream ? "stderr" : "stdout";
    frame += "\",\"data\":";
    put_escaped(frame, utf8_replace(std::string_view(text).substr(i, std::min(chunk, cut - i))));
    frame += "}\n";
    lock_guard g(&h.out_mu);
    if (!h.started && h.out.size() > (8u << 20)) continue;  // nobody reads yet: bounded
    h.out.append(frame);
  }
  text.erase(0, cut);
  h.carry_pending.store(!h.log_carry[0].empty() || !h.log_carry[1].empty(), std::memory_order_relaxed);
}

// Reads what the solution wrote to fd 1 and 2 so far into log frames; true
// if there was any. Also copies stderr to the real stderr.
bool drain_logs(bool final) {
  host_state& h = state();
  if (h.log_fd[0] < 0) return false;
  // One poll(2) tells whether either pipe holds output: the common call
  // prints nothing and costs this one system call.
  pollfd ready[2] = {{h.log_fd[0], POLLIN, 0}, {h.log_fd[1], POLLIN, 0}};
  int r = ::poll(ready, 2, 0);
  lock_guard g(&h.log_mu);
  if (r == 0 && !(final && (!h.log_carry[0].empty() || !h.log_carry[1].empty()))) return false;
  bool any = false;
  char tmp[64 * 1024];
  for (int s = 0; s < 2; s++) {
    for (;;) {
      if (r == 0) break;
      ssize_t n = ::read(h.log_fd[s], tmp, sizeof tmp);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        break;
      }
      any = true;
      if (s == 1 && h.real_err >= 0) {
        ssize_t ignored = ::write(h.real_err, tmp, static_cast<std::size_t>(n));
        (void)ignored;
      }
      emit_log(s, tmp, static_cast<std::size_t>(n), final);
    }
    if (final && !h.log_carry[s].empty()) {
      emit_log(s, nullptr, 0, true);
      any = true;
    }
  }
  return any;
}

// Output through stdio (printf, puts, std::cout) never reaches a
// descriptor: stdout and stderr are cookie streams and the C++ streams have
// buffers that append to the log directly, so a call that prints costs no
// system call and its lines go before its answer. Raw writes to fd 1 and 2
// (write(2), a child process) go through the pipes, forwarded by the pump.
void log_write(int s, const char* p, std::size_t n) {
  host_state& h = state();
  {
    lock_guard g(&h.log_mu);
    if (s == 1 && h.real_err >= 0) {
      ssize_t ignored = ::write(h.real_err, p, n);
      (void)ignored;
    }
    emit_log(s, p, n, false);
  }
  if (!pthread_equal(pthread_self(), h.main_thread)) flush_out();  // nobody else will send it soon
}

ssize_t cookie_write(void* cookie, const char* p, std::size_t n) {
  log_write(static_cast<int>(reinterpret_cast<std::intptr_t>(cookie)), p, n);
  return static_cast<ssize_t>(n);
}

// The C++ streams' buffer: every write goes to the log at once (no buffer
// of its own), so std::cout and printf lines keep their order.
struct log_buf : std::streambuf {
  int stream;
  explicit log_buf(int s) : stream(s) {}
  int overflow(int c) override {
    if (c != traits_type::eof()) {
      char ch = static_cast<char>(c);
      log_write(stream, &ch, 1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    log_write(stream, p, static_cast<std::size_t>(n));
    return n;
  }
};

log_buf cout_buf_ __attribute__((init_priority(101)))(0);
log_buf cerr_buf_ __attribute__((init_priority(101)))(1);
inline log_buf& cout_buf() { return cout_buf_; }
inline log_buf& cerr_buf() { return cerr_buf_; }

void install_streams() {
  // Unsynchronised first: a later std::ios::sync_with_stdio(false) in the
  // solution then changes nothing (it would give the streams buffers on
  // fd 1, which the cookie stdout does not have).
  std::ios::sync_with_stdio(false);
  std::cout.rdbuf(&cout_buf());
  std::cerr.rdbuf(&cerr_buf());
  std::clog.rdbuf(&cerr_buf());
}

// Sends a partial line of each stream at the end of a call.
void flush_carry() {
  host_state& h = state();
  lock_guard g(&h.log_mu);
  for (int s = 0; s < 2; s++)
    if (!h.log_carry[s].empty()) emit_log(s, nullptr, 0, true);
}

// Everything the call wrote through stdio or C++ streams, as logs. Each
// step is skipped when it has nothing to do (the common call prints
// nothing): the C++ streams still on the host's unbuffered log_buf, stdio
// with nothing pending, no partial line kept.
void flush_user_streams() {
  if (std::cout.rdbuf() != &cout_buf()) std::cout.flush();
  if (std::cerr.rdbuf() != &cerr_buf()) std::cerr.flush();
  if (std::clog.rdbuf() != &cerr_buf()) std::clog.flush();
  if (__fpending(stdout)) std::fflush(stdout);
  if (__fpending(stderr)) std::fflush(stderr);
  if (state().carry_pending.load(std::memory_order_relaxed)) flush_carry();
}

// Takes the next complete line out of buf (skipping lines over the limit);
// in_mu held.
bool take_line(std::string& line) {
  host_state& h = state();
  for (;;) {
    const char* base = h.buf.data();
    const void* nl = std::memchr(base + h.pos, '\n', h.buf.size() - h.pos);
    if (!nl) {
      if (h.eof && h.pos < h.buf.size() && !h.skipping) {  // a last line without newline
        line.assign(base + h.pos, h.buf.size() - h.pos);
        h.pos = h.buf.size();
        return true;
      }
      return false;
    }
    std::size_t end = static_cast<const char*>(nl) - base;
    bool skip = h.skipping;
    h.skipping = false;
    if (!skip) line.assign(base + h.pos, end - h.pos);
    h.pos = end + 1;
    if (!skip) return true;
  }
}

void classify_locked(std::string& line, bool keep_calls);

// One read from the judge (a blocking read(2): one system call when the
// judge is slower than the host); in_mu held on entry and exit. If another
// thread is reading, sends what is owed and waits for it instead: the
// judge may be waiting for that output before it writes again.
void fill_locked() {
  host_state& h = state();
  if (h.reading) {
    pthread_mutex_unlock(&h.in_mu);
    flush_out();
    pthread_mutex_lock(&h.in_mu);
    if (h.reading) pthread_cond_wait(&h.in_cv, &h.in_mu);
    return;
  }
  h.reading = true;
  pthread_mutex_unlock(&h.in_mu);
  flush_out();  // everything owed is sent before waiting for more
  char tmp[64 * 1024];
  ssize_t n;
  for (;;) {
    n = ::read(h.in_fd, tmp, sizeof tmp);
    if (n >= 0) break;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {  // a stdin the judge made non-blocking
      pollfd r{h.in_fd, POLLIN, 0};
      ::poll(&r, 1, -1);
      continue;
    }
    n = 0;  // an error is an end
    break;
  }
  pthread_mutex_lock(&h.in_mu);
  if (n == 0) {
    h.eof = true;
  } else {
    if (h.pos > 0) {
      h.buf.erase(0, h.pos);
      h.pos = 0;
    }
    std::size_t old = h.buf.size();
    h.buf.append(tmp, static_cast<std::size_t>(n));
    // Callers take every complete line before reading more, so what was
    // buffered is one unfinished line: over the limit, it is dropped now and
    // the rest of it skipped up to its newline.
    if (!std::memchr(h.buf.data() + old, '\n', static_cast<std::size_t>(n)) && h.buf.size() > max_line) {
      h.buf.clear();
      h.skipping = true;
    }
  }
  h.reading = false;
  pthread_cond_broadcast(&h.in_cv);
}

std::string new_id() {
  host_state& h = state();
  static const char hex[] = "0123456789abcdef";
  std::string id(32, '0');
  for (int half = 0; half < 2; half++) {
    unsigned long long z = (h.id_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (int i = 0; i < 16; i++) id[half * 16 + i] = hex[(z >> (i * 4)) & 15];
  }
  return id;
}

std::string error_frame(std::string_view id, const char* code, const std::string& message,
                               const std::string* trace = nullptr) {
  std::string f = "{\"type\":\"error\",\"id\":";
  put_escaped(f, id);
  f += ",\"code\":\"";
  f += code;
  f += "\",\"message\":";
  put_escaped(f, utf8_replace(message));
  if (trace) {
    f += ",\"trace\":";
    put_escaped(f, utf8_replace(*trace));
  }
  f += "}\n";
  return f;
}

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

std::string clip(std::string s, std::size_t limit) {
  if (s.size() <= limit) return s;
  std::size_t more = s.size() - limit;
  s.resize(limit);
  return s + "... (" + std::to_string(more) + " more bytes)";
}

// The answer frame (a whole line) for one call frame, into out (its
// buffer kept from call to call).
void answer(const frame& f, std::string_view id, std::string& out) {
  out.clear();
  using namespace std::string_view_literals;
  if (!f.codec_error.empty()) return void(out = error_frame(id, "Rejected", "args: " + f.codec_error));
  std::string scratch;
  std::string_view name;
  if (f.plain) {
    name = plain_text(f.fn);
  } else if (!text_of(f.fn, scratch, name)) {
    std::string shown = f.fn.empty() ? "null" : std::string(f.fn.substr(0, 200));
    return void(out = error_frame(id, "NotFound", "function " + shown + " not registered"));
  }
  auto& reg = registry();
  auto it = reg.find(name);
  if (it == reg.end()) return void(out = error_frame(id, "NotFound", "function '" + std::string(name) + "' not registered"));
  std::string_view args = f.args.empty() ? std::string_view("[]") : f.args;
  if (args[0] != '[') return void(out = error_frame(id, "Rejected", "args must be an array"));
  out += "{\"type\":\"result\",\"id\":"sv;
  if (f.plain)
    out += f.id;  // plain: its span is its canonical text
  else
    put_escaped(out, id);
  out += ",\"value\":"sv;
  reader r{args.data(), args.data() + args.size()};
  r.simple = f.simple;
  try {
    it->second.invoke(it->second.raw, it->first, r, out);
  } catch (const path_error& e) {
    if (r.arg >= 0) return void(out = error_frame(id, "Rejected", rooted("args" + index_path(r.arg), e)));
    if (r.arg == reader::value_arg) return void(out = error_frame(id, "Rejected", rooted("value", e)));
    std::string line = clip(demangle(typeid(e).name()) + ": " + e.what(), 64 * 1024);  // the function's own
    return void(out = error_frame(id, "Exception", line, &line));
  } catch (const rejected& e) {
    return void(out = error_frame(id, "Rejected", e.what()));
  } catch (const std::exception& e) {
    std::string line = demangle(typeid(e).name()) + ": " + e.what();
    line = clip(line, 64 * 1024);
    return void(out = error_frame(id, "Exception", line, &line));
  } catch (...) {
    std::type_info* t = abi::__cxa_current_exception_type();
    std::string line = t ? demangle(t->name()) : std::string("unknown exception");
    line = "exception of type " + line;
    return void(out = error_frame(id, "Exception", line, &line));
  }
  out += "}\n"sv;
  if (out.size() - 1 > max_frame)
    out = error_frame(id, "Rejected", "frame size " + std::to_string(out.size() - 1) + " > " + std::to_string(max_frame));
}

// Handles one line read from the judge; in_mu held. A call is queued when
// keep_calls (another thread read it), else left in line for the caller
// (returns true then).
bool route_locked(std::string& line, frame& f, bool keep_calls) {
  host_state& h = state();
  if (!parse_frame(line, f)) return false;
  if (f.plain) {  // a call: its type was read as text
    if (f.id.size() == 2) return false;  // an empty id
    if (keep_calls) {
      h.queued.push_back(line);
      return false;
    }
    return true;
  }
  std::string scratch;
  std::string_view type;
  if (!text_of(f.type, scratch, type)) return false;
  if (type == "call") {
    std::string_view id;
    if (!text_of(f.id, scratch, id) || id.empty()) return false;
    if (keep_calls) {
      h.queued.push_back(line);
      return false;
    }
    return true;
  }
  if (type == "result" || type == "error") {
    std::string id;  // (type may view scratch: not reused here)
    if (!string_of(f.id, id)) return false;
    auto it = h.answers.find(id);
    if (it != h.answers.end() && it->second.empty()) {
      it->second = line;
      pthread_cond_broadcast(&h.in_cv);
    }
    return false;
  }
  if (type == "shutdown") h.eof = true;  // as stdin EOF: answer what is queued, then exit
  return false;
}

void classify_locked(std::string& line, bool keep_calls) {
  frame f;
  route_locked(line, f, keep_calls);
}

// Reads lines until the main thread has a call to run (true, in line) or
// the input ended (false); in_mu held.
bool next_call_locked(std::string& line, frame& f) {
  host_state& h = state();
  for (;;) {
    if (h.queued_head < h.queued.size()) {
      line.swap(h.queued[h.queued_head++]);
      if (h.queued_head == h.queued.size()) {
        h.queued.clear();
        h.queued_head = 0;
      }
      parse_frame(line, f);
      return true;
    }
    if (take_line(line)) {
      if (route_locked(line, f, false)) return true;
      continue;
    }
    if (h.eof) return false;
    fill_locked();
  }
}

// The background thread: forwards fd 1 and fd 2 as logs while the solution
// writes, and reads the judge's frames while a call runs long, so that the
// judge's writes never stall.
void* pump(void*) {
  host_state& h = state();
  unsigned long seen_seq = ~0ul;
  int ticks = 0;
  for (;;) {
    bool watch_in = false;
    {
      lock_guard g(&h.in_mu);
      if (h.busy && h.busy_seq == seen_seq && !h.eof)
        ticks++;
      else
        ticks = 0;
      seen_seq = h.busy ? h.busy_seq : ~0ul;
      watch_in = ticks >= 2 && !h.reading;
    }
    pollfd fds[3] = {{h.log_fd[0], POLLIN, 0}, {h.log_fd[1], POLLIN, 0}, {h.in_fd, POLLIN, 0}};
    int r = ::poll(fds, watch_in ? 3 : 2, 50);
    if (r < 0) continue;
    if ((fds[0].revents | fds[1].revents) & (POLLIN | POLLHUP)) {
      if (drain_logs(false)) flush_out();
    }
    if (watch_in && (fds[2].revents & (POLLIN | POLLHUP))) {
      lock_guard g(&h.in_mu);
      // Nobody else reads while reading is false and in_mu is held, so
      // bytes FIONREAD counts now (or the writer's end, POLLHUP) are still
      // there: the read below cannot block, whoever read since the poll.
      int avail = 0;
      bool ready = ::ioctl(h.in_fd, FIONREAD, &avail) == 0 ? avail > 0 || (fds[2].revents & POLLHUP) : true;
      if (h.busy && h.busy_seq == seen_seq && !h.reading && !h.eof && ready) {
        fill_locked();
        std::string line;
        while (take_line(line)) classify_locked(line, true);
      }
    }
  }
  return nullptr;
}

void on_term(int) { ::_exit(0); }

// Runs before the solution's own static initializers: the protocol moves to
// private descriptors, fd 0 reads /dev/null, fd 1 and fd 2 become pipes
// read into log frames.
void setup() {
  host_state& h = state();
  h.in_fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  h.out_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  h.real_err = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (h.in_fd < 0 || h.out_fd < 0) {
    const char msg[] = "tether host: cannot duplicate stdin/stdout\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(1);
  }
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
    ::close(null_fd);
  }
  for (int s = 0; s < 2; s++) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) continue;
    ::dup2(p[1], s + 1);  // dup2 clears O_CLOEXEC on the copy: children inherit it
    ::close(p[1]);
    ::fcntl(p[0], F_SETFL, ::fcntl(p[0], F_GETFL) | O_NONBLOCK);
    h.log_fd[s] = p[0];
  }
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &sa, nullptr);  // a closed channel is a write error, handled
  sa.sa_handler = on_term;
  ::sigaction(SIGTERM, &sa, nullptr);
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  h.id_state = static_cast<unsigned long long>(ts.tv_nsec) ^ (static_cast<unsigned long long>(ts.tv_sec) << 20) ^
               (static_cast<unsigned long long>(::getpid()) << 40);
  h.out = "{\"type\":\"ready\"}\n";
  h.main_thread = pthread_self();
  cookie_io_functions_t io{};
  io.write = cookie_write;
  if (FILE* f = fopencookie(reinterpret_cast<void*>(std::intptr_t{0}), "w", io)) {
    setvbuf(f, nullptr, _IOLBF, 4096);  // whole lines, in order with std::cout's
    stdout = f;
  }
  if (FILE* f = fopencookie(reinterpret_cast<void*>(std::intptr_t{1}), "w", io)) {
    setvbuf(f, nullptr, _IONBF, 0);  // stderr stays unbuffered
    stderr = f;
  }
  h.running = true;
  if (h.log_fd[0] >= 0 && h.log_fd[1] >= 0) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    if (pthread_create(&t, &attr, pump, nullptr) == 0) pthread_detach(t);
    pthread_attr_destroy(&attr);
  }
}

struct setup_at_load {
  setup_at_load() { setup(); }
};

int serve() {
  host_state& h = state();
  install_streams();
  flush_user_streams();
  {
    lock_guard g(&h.out_mu);
    h.started = true;
  }
  flush_out();
  std::string line, id, a;
  frame f;
  // One lock of in_mu per call: taken at the end of a call, it is kept to
  // read the next one.
  pthread_mutex_lock(&h.in_mu);
  for (;;) {
    if (!next_call_locked(line, f)) break;
    h.busy = true;
    h.busy_seq++;
    pthread_mutex_unlock(&h.in_mu);
    std::string_view idv;
    if (f.plain)
      idv = plain_text(f.id);
    else
      text_of(f.id, id, idv);
    answer(f, idv, a);
    flush_user_streams();
    move_out(a);
    pthread_mutex_lock(&h.in_mu);
    h.busy = false;
  }
  pthread_mutex_unlock(&h.in_mu);
  flush_user_streams();
  flush_out();
  ::_exit(0);
}


}  // namespace detail

bytes::bytes(std::string_view s) : std::vector<std::uint8_t>(s.begin(), s.end()) {}
std::string bytes::str() const { return std::string(begin(), end()); }

json::json(const tether::bytes& b) : k_(kind::bytes), s_(b.begin(), b.end()) {}
json::json(array_t a) : k_(kind::array), a_(std::move(a)) {}
json::json(object_t o) : k_(kind::object), o_(new object_t(std::move(o))) {}
json::json(const json& o) : k_(o.k_), u_(o.u_), s_(o.s_), a_(o.a_), o_(o.o_ ? new object_t(*o.o_) : nullptr) {}
json::json(json&& o) noexcept : k_(o.k_), u_(o.u_), s_(std::move(o.s_)), a_(std::move(o.a_)), o_(o.o_) {
  o.o_ = nullptr;
}
json& json::operator=(const json& o) {
  if (this != &o) *this = json(o);
  return *this;
}
json& json::operator=(json&& o) noexcept {
  if (this != &o) {
    k_ = o.k_;
    u_ = o.u_;
    s_ = std::move(o.s_);
    a_ = std::move(o.a_);
    std::swap(o_, o.o_);  // o takes the old map, freed with it
  }
  return *this;
}
json::~json() { delete o_; }

json json::big_integer(std::string digits) {
  json j;
  j.k_ = kind::big_integer;
  j.s_ = std::move(digits);
  return j;
}
json json::raw_bytes(std::string data) {
  json j;
  j.k_ = kind::bytes;
  j.s_ = std::move(data);
  return j;
}

long long json::as_int() const {
  if (k_ == kind::big_integer) throw rejected("integer " + s_ + " does not fit in 64 bits");
  return want(kind::integer), u_.i;
}
double json::as_double() const {
  if (k_ == kind::integer) return static_cast<double>(u_.i);
  return want(kind::number), u_.d;
}
tether::bytes json::as_bytes() const { return want(kind::bytes), tether::bytes(s_); }
std::string json::text() const {
  if (k_ == kind::integer) return std::to_string(u_.i);
  return want(kind::big_integer), s_;
}
#ifdef __SIZEOF_INT128__
json::json(__int128 v) {
  if (v >= std::numeric_limits<long long>::min() && v <= std::numeric_limits<long long>::max()) {
    k_ = kind::integer;
    u_.i = static_cast<long long>(v);
    return;
  }
  unsigned __int128 mag = v < 0 ? 0 - static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[41], *q = buf + sizeof buf;  // 2^127 has 39 digits
  do *--q = static_cast<char>('0' + static_cast<int>(mag % 10));
  while ((mag /= 10) != 0);
  if (v < 0) *--q = '-';
  k_ = kind::big_integer;
  s_.assign(q, buf + sizeof buf);
}
__int128 json::as_int128() const {
  if (k_ == kind::integer) return u_.i;
  want(kind::big_integer);
  bool neg = !s_.empty() && s_[0] == '-';
  const unsigned __int128 limit = (static_cast<unsigned __int128>(1) << 127) - (neg ? 0 : 1);
  unsigned __int128 mag = 0;
  for (std::size_t i = neg; i < s_.size(); i++) {
    unsigned d = static_cast<unsigned char>(s_[i]) - '0';
    if (d > 9) throw rejected("integer " + s_ + " is not a decimal integer");
    if (mag > (limit - d) / 10) throw rejected("integer " + s_ + " does not fit in 128 bits");
    mag = mag * 10 + d;
  }
  return static_cast<__int128>(neg ? 0 - mag : mag);
}
#endif
std::size_t json::size() const { return k_ == kind::array ? a_.size() : k_ == kind::object ? o_->size() : 0; }
const json& json::operator[](std::size_t i) const { return as_array().at(i); }
json& json::operator[](std::size_t i) { return as_array().at(i); }
const json& json::operator[](const std::string& key) const { return as_object().at(key); }
json& json::operator[](const std::string& key) {
  if (k_ == kind::null) *this = object_t{};
  return as_object()[key];
}
void json::push_back(json v) {
  if (k_ == kind::null) *this = array_t{};
  as_array().push_back(std::move(v));
}
const char* json::kind_name(kind k) {
  switch (k) {
    case kind::null: return "null";
    case kind::boolean: return "a boolean";
    case kind::integer:
    case kind::big_integer: return "an integer";
    case kind::number: return "a float";
    case kind::string: return "a string";
    case kind::bytes: return "bytes";
    case kind::array: return "a list";
    case kind::object: return "a map";
  }
  return "?";
}
void json::wrong_kind(kind k) const {
  throw rejected(std::string("expected ") + kind_name(k) + ", got " + kind_name(k_));
}

json json::parse(std::string_view text) {
  detail::scanner s{text.data(), text.data() + text.size(), {}, true};
  bool ok = s.value(0);
  s.ws();
  if (!ok || !s.syntax_ok) throw rejected("invalid JSON");
  if (s.p != s.end) throw rejected("invalid JSON: trailing data");
  if (!s.codec_error.empty()) throw rejected(s.codec_error);
  detail::reader r{text.data(), text.data() + text.size()};
  return r.read_json();
}

std::string json::dump() const {
  std::string out;
  try {
    detail::put(out, *this, 0);
  } catch (detail::path_error& e) {
    throw rejected(detail::rooted("value", e));
  }
  return out;
}

// Calls the evaluator's capability name with args (already values).
json call_capability_values(const std::string& name, const std::vector<json>& args) {
  using namespace detail;
  host_state& h = state();
  if (!h.running) throw capability_connection_error("not running under the tether solution host");
  std::string id = new_id();
  std::string f = "{\"type\":\"capability\",\"id\":\"" + id + "\",\"name\":";
  if (!valid_utf8(name)) throw capability_rejected("capability name is not valid UTF-8");
  put_escaped(f, name);
  f += ",\"args\":[";
  for (std::size_t i = 0; i < args.size(); i++) {
    if (i) f += ',';
    try {
      put(f, args[i], 1);
    } catch (path_error& e) {
      throw capability_rejected(rooted("args" + index_path(i), e));
    }
  }
  f += "]}\n";
  if (f.size() - 1 > max_frame)
    throw capability_rejected("frame size " + std::to_string(f.size() - 1) + " > " + std::to_string(max_frame));
  {
    lock_guard g(&h.in_mu);
    if (h.eof) throw capability_connection_error("channel to the judge closed (stdin EOF)");
    h.answers[id] = std::string();
  }
  flush_user_streams();
  append_out(f);
  flush_out();
  std::string line;
  {
    lock_guard g(&h.in_mu);
    for (;;) {
      auto it = h.answers.find(id);
      if (!it->second.empty()) {
        line.swap(it->second);
        h.answers.erase(it);
        break;
      }
      std::string l;
      if (take_line(l)) {
        classify_locked(l, true);
        continue;
      }
      if (h.eof) {
        h.answers.erase(it);
        throw capability_connection_error("channel to the judge closed (stdin EOF)");
      }
      fill_locked();
    }
  }
  frame fr;
  parse_frame(line, fr);
  if (!fr.codec_error.empty()) throw capability_rejected(fr.codec_error);
  std::string type, code, message;
  string_of(fr.type, type);
  if (type == "result") {
    std::string_view v = fr.value.empty() ? std::string_view("null") : fr.value;
    reader r{v.data(), v.data() + v.size()};
    return r.read_json();
  }
  if (!string_of(fr.code, code)) code = "SystemError";
  string_of(fr.message, message);
  if (code == "NotFound") throw capability_not_found(message);
  if (code == "Rejected") throw capability_rejected(message);
  throw capability_error(code, message);
}

}  // namespace tether

// The host starts before the solution's own static objects, and main serves.
static tether::detail::setup_at_load tether_setup_at_load_ __attribute__((init_priority(101)));
int main() { return tether::detail::serve(); }
