/* tether.c: the runtime of the C solution host (see tether.h): values, the
 * protocol's codec, the frame loop, the log pipes and main. */
#define _GNU_SOURCE
#include "tether.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME (1 << 20)
#define MAX_LINE (4 << 20)
#define MAX_DEPTH 512
#define MAX_INT_DIGITS 4300
#define LOG_CHUNK (64 * 1024)

struct tether_value {
  tether_kind kind;
  int b;
  long long i;
  double d;
  char *s; /* string, bytes, bigint digits (NUL-terminated) */
  size_t n;
  tether_value **items;
  char **keys;
  size_t len, cap;
};

/* ------------------------------------------------------------ memory */

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    static const char msg[] = "tether host: out of memory\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    abort();
  }
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) xmalloc(SIZE_MAX);
  return p;
}

typedef struct {
  char *p;
  size_t n, cap;
} buf;

static void buf_grow(buf *b, size_t more) {
  if (b->n + more + 1 > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 256;
    while (c < b->n + more + 1) c *= 2;
    b->p = xrealloc(b->p, c);
    b->cap = c;
  }
}
static void buf_add(buf *b, const char *s, size_t n) {
  buf_grow(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }
static void buf_ch(buf *b, char c) { buf_add(b, &c, 1); }

/* ------------------------------------------------------------ values */

static tether_value *mk(tether_kind k) {
  tether_value *v = xmalloc(sizeof *v);
  memset(v, 0, sizeof *v);
  v->kind = k;
  return v;
}
tether_value *tether_null(void) { return mk(TETHER_NULL); }
tether_value *tether_bool(int b) {
  tether_value *v = mk(TETHER_BOOL);
  v->b = b != 0;
  return v;
}
tether_value *tether_int(long long i) {
  tether_value *v = mk(TETHER_INT);
  v->i = i;
  return v;
}
static tether_value *mk_text(tether_kind k, const char *s, size_t n) {
  tether_value *v = mk(k);
  v->s = xmalloc(n + 1);
  if (n) memcpy(v->s, s, n);
  v->s[n] = 0;
  v->n = n;
  return v;
}
tether_value *tether_bigint(const char *digits) { return mk_text(TETHER_BIGINT, digits, strlen(digits)); }
tether_value *tether_float(double d) {
  tether_value *v = mk(TETHER_FLOAT);
  v->d = d;
  return v;
}
tether_value *tether_string(const char *s) { return mk_text(TETHER_STRING, s, strlen(s)); }
tether_value *tether_string_n(const char *s, size_t n) { return mk_text(TETHER_STRING, s, n); }
tether_value *tether_bytes(const void *p, size_t n) { return mk_text(TETHER_BYTES, p, n); }
tether_value *tether_list(void) { return mk(TETHER_LIST); }
tether_value *tether_map(void) { return mk(TETHER_MAP); }

static void push(tether_value *c, char *key, tether_value *item) {
  if (c->len == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 4;
    c->items = xrealloc(c->items, c->cap * sizeof *c->items);
    if (c->kind == TETHER_MAP) c->keys = xrealloc(c->keys, c->cap * sizeof *c->keys);
  }
  if (c->kind == TETHER_MAP) c->keys[c->len] = key;
  c->items[c->len++] = item ? item : tether_null();
}
void tether_append(tether_value *list, tether_value *item) {
  if (list && list->kind == TETHER_LIST) push(list, NULL, item);
}
void tether_set(tether_value *map, const char *key, tether_value *item) {
  if (!map || map->kind != TETHER_MAP) return;
  for (size_t k = 0; k < map->len; k++)
    if (strcmp(map->keys[k], key) == 0) {
      tether_free(map->items[k]);
      map->items[k] = item ? item : tether_null();
      return;
    }
  size_t n = strlen(key);
  char *copy = xmalloc(n + 1);
  memcpy(copy, key, n + 1);
  push(map, copy, item);
}
void tether_free(tether_value *v) {
  if (!v) return;
  for (size_t k = 0; k < v->len; k++) {
    tether_free(v->items[k]);
    if (v->keys) free(v->keys[k]);
  }
  free(v->items);
  free(v->keys);
  free(v->s);
  free(v);
}
tether_value *tether_copy(const tether_value *v) {
  if (!v) return tether_null();
  tether_value *c = mk(v->kind);
  c->b = v->b;
  c->i = v->i;
  c->d = v->d;
  if (v->s) {
    tether_free(c);
    c = mk_text(v->kind, v->s, v->n);
  }
  for (size_t k = 0; k < v->len; k++) {
    char *key = NULL;
    if (v->keys) {
      size_t n = strlen(v->keys[k]);
      key = xmalloc(n + 1);
      memcpy(key, v->keys[k], n + 1);
    }
    push(c, key, tether_copy(v->items[k]));
  }
  return c;
}

tether_kind tether_kind_of(const tether_value *v) { return v ? v->kind : TETHER_NULL; }
size_t tether_len(const tether_value *v) {
  if (!v) return 0;
  if (v->kind == TETHER_LIST || v->kind == TETHER_MAP) return v->len;
  if (v->kind == TETHER_STRING || v->kind == TETHER_BYTES) return v->n;
  return 0;
}
const tether_value *tether_at(const tether_value *v, size_t i) {
  return v && v->kind == TETHER_LIST && i < v->len ? v->items[i] : NULL;
}
const tether_value *tether_get(const tether_value *v, const char *key) {
  if (!v || v->kind != TETHER_MAP) return NULL;
  for (size_t k = 0; k < v->len; k++)
    if (strcmp(v->keys[k], key) == 0) return v->items[k];
  return NULL;
}
const char *tether_key(const tether_value *v, size_t i) {
  return v && v->kind == TETHER_MAP && i < v->len ? v->keys[i] : NULL;
}
const tether_value *tether_value_at(const tether_value *v, size_t i) {
  return v && v->kind == TETHER_MAP && i < v->len ? v->items[i] : NULL;
}

/* A value read as the wrong kind fails the call as Rejected: the host
 * jumps back to where it called the function. */
static jmp_buf *call_jump;
static char reject_text[512];

static const char *kind_name(tether_kind k) {
  static const char *names[] = {"null", "a boolean", "an integer", "an integer", "a float",
                                "a string", "bytes", "a list", "a map"};
  return names[k];
}

static void mismatch(const tether_value *v, const char *want) {
  snprintf(reject_text, sizeof reject_text, "expected %s, got %s", want, kind_name(tether_kind_of(v)));
  if (call_jump) longjmp(*call_jump, 1);
  fprintf(stderr, "tether: %s\n", reject_text);
  abort();
}

int tether_as_bool(const tether_value *v) {
  if (tether_kind_of(v) != TETHER_BOOL) mismatch(v, "a boolean");
  return v->b;
}
long long tether_as_int(const tether_value *v) {
  if (tether_kind_of(v) == TETHER_BIGINT) {
    snprintf(reject_text, sizeof reject_text, "integer %.40s does not fit in 64 bits", v->s);
    if (call_jump) longjmp(*call_jump, 1);
  }
  if (tether_kind_of(v) != TETHER_INT) mismatch(v, "an integer");
  return v->i;
}
double tether_as_float(const tether_value *v) {
  if (tether_kind_of(v) == TETHER_INT) return (double)v->i;
  if (tether_kind_of(v) == TETHER_BIGINT) return strtod(v->s, NULL);
  if (tether_kind_of(v) != TETHER_FLOAT) mismatch(v, "a number");
  return v->d;
}
const char *tether_as_string(const tether_value *v) {
  if (tether_kind_of(v) != TETHER_STRING && tether_kind_of(v) != TETHER_BIGINT) mismatch(v, "a string");
  return v->s;
}
const char *tether_as_c_string(const tether_value *v) {
  const char *s = tether_as_string(v);
  if (strlen(s) != v->n) {
    snprintf(reject_text, sizeof reject_text, "a string with a NUL character does not fit a C string (const char *)");
    if (call_jump) longjmp(*call_jump, 1);
  }
  return s;
}
const unsigned char *tether_as_bytes(const tether_value *v, size_t *n) {
  if (tether_kind_of(v) != TETHER_BYTES) mismatch(v, "bytes");
  if (n) *n = v->n;
  return (const unsigned char *)v->s;
}

static char *thrown; /* "type: message" of tether_throw, for the current call */

tether_value *tether_throw(const char *type, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  free(thrown);
  size_t n = strlen(type) + strlen(msg) + 3;
  thrown = xmalloc(n);
  snprintf(thrown, n, msg[0] ? "%s: %s" : "%s", type, msg);
  return NULL;
}

/* ------------------------------------------------------------ encoding */

static int utf8_seq(const unsigned char *s, size_t n, size_t i) {
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

static int valid_utf8(const char *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  for (size_t i = 0; i < n;) {
    int k = utf8_seq(s, n, i);
    if (!k) return 0;
    i += k;
  }
  return 1;
}

/* s with invalid UTF-8 replaced by U+FFFD, escaped. */
static void put_escaped(buf *b, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)p;
  buf_ch(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      int k = utf8_seq(s, n, i);
      if (k) buf_add(b, p + i, k);
      else buf_str(b, "\xEF\xBF\xBD");
      i += k ? k : 1;
      continue;
    }
    i++;
    switch (c) {
      case '"': buf_str(b, "\\\""); break;
      case '\\': buf_str(b, "\\\\"); break;
      case '\n': buf_str(b, "\\n"); break;
      case '\r': buf_str(b, "\\r"); break;
      case '\t': buf_str(b, "\\t"); break;
      case '\b': buf_str(b, "\\b"); break;
      case '\f': buf_str(b, "\\f"); break;
      default:
        if (c < 0x20) {
          char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
          buf_str(b, e);
        } else {
          buf_ch(b, (char)c);
        }
    }
  }
  buf_ch(b, '"');
}

/* Python's repr(float): shortest round-trip digits, Python's layout. */
static void put_double(buf *b, double d) {
  if (d == 0) {
    buf_str(b, signbit(d) ? "-0.0" : "0.0");
    return;
  }
  char sci[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(sci, sizeof sci, "%.*e", p - 1, d);
    if (strtod(sci, NULL) == d) break;
  }
  char *e = strchr(sci, 'e');
  int neg = sci[0] == '-';
  char digits[24];
  size_t nd = 0;
  for (char *q = sci + neg; q < e; q++)
    if (*q != '.') digits[nd++] = *q;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  int x = atoi(e + 1);
  if (neg) buf_ch(b, '-');
  if (x >= -4 && x < 16) {
    if (x < 0) {
      buf_str(b, "0.");
      for (int k = 0; k < -x - 1; k++) buf_ch(b, '0');
      buf_str(b, digits);
    } else if ((size_t)x + 1 >= nd) {
      buf_str(b, digits);
      for (size_t k = nd; k < (size_t)x + 1; k++) buf_ch(b, '0');
      buf_str(b, ".0");
    } else {
      buf_add(b, digits, x + 1);
      buf_ch(b, '.');
      buf_str(b, digits + x + 1);
    }
    return;
  }
  buf_ch(b, digits[0]);
  if (nd > 1) {
    buf_ch(b, '.');
    buf_str(b, digits + 1);
  }
  char ex[16];
  snprintf(ex, sizeof ex, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
  buf_str(b, ex);
}

static void put_base64(buf *b, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  buf_str(b, "{\"__bytes__\":\"");
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    unsigned v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
    char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], tab[v & 63]};
    buf_add(b, q, 4);
  }
  if (i + 1 == n) {
    unsigned v = p[i] << 16;
    char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], '=', '='};
    buf_add(b, q, 4);
  } else if (i + 2 == n) {
    unsigned v = (p[i] << 16) | (p[i + 1] << 8);
    char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], '='};
    buf_add(b, q, 4);
  }
  buf_str(b, "\"}");
}

static int cmp_index_keys(const void *a, const void *b, void *keys) {
  char **k = keys;
  return strcmp(k[*(const size_t *)a], k[*(const size_t *)b]);
}

/* Appends v; on a value outside the codec writes the reason to err (the
 * path is built on the way out) and returns 0. */
static int put(buf *b, const tether_value *v, int depth, buf *path, buf *err) {
  switch (tether_kind_of(v)) {
    case TETHER_NULL: buf_str(b, "null"); return 1;
    case TETHER_BOOL: buf_str(b, v->b ? "true" : "false"); return 1;
    case TETHER_INT: {
      char t[24];
      snprintf(t, sizeof t, "%lld", v->i);
      buf_str(b, t);
      return 1;
    }
    case TETHER_BIGINT: {
      const char *s = v->s;
      size_t digits = v->n - (s[0] == '-');
      int ok = digits > 0 && digits <= MAX_INT_DIGITS;
      for (size_t k = s[0] == '-'; ok && k < v->n; k++) ok = s[k] >= '0' && s[k] <= '9';
      if (!ok) {
        buf_str(err, digits > MAX_INT_DIGITS ? "integer has more than 4300 digits" : "bigint is not a decimal integer");
        return 0;
      }
      buf_add(b, s, v->n);
      return 1;
    }
    case TETHER_FLOAT:
      if (isnan(v->d)) {
        buf_str(err, "NaN is not transferable");
        return 0;
      }
      if (isinf(v->d)) {
        buf_str(err, v->d > 0 ? "Infinity is not transferable" : "-Infinity is not transferable");
        return 0;
      }
      put_double(b, v->d);
      return 1;
    case TETHER_STRING:
      if (!valid_utf8(v->s, v->n)) {
        buf_str(err, "string is not valid UTF-8");
        return 0;
      }
      put_escaped(b, v->s, v->n);
      return 1;
    case TETHER_BYTES: put_base64(b, (const unsigned char *)v->s, v->n); return 1;
    case TETHER_LIST:
      if (depth >= MAX_DEPTH) {
        buf_str(err, "nesting too deep (more than 512)");
        return 0;
      }
      buf_ch(b, '[');
      for (size_t k = 0; k < v->len; k++) {
        if (k) buf_ch(b, ',');
        if (!put(b, v->items[k], depth + 1, path, err)) {
          char t[32];
          snprintf(t, sizeof t, "[%zu]", k);
          buf tmp = {0};
          buf_str(&tmp, t);
          if (path->n) buf_add(&tmp, path->p, path->n);
          free(path->p);
          *path = tmp;
          return 0;
        }
      }
      buf_ch(b, ']');
      return 1;
    case TETHER_MAP: {
      if (depth >= MAX_DEPTH) {
        buf_str(err, "nesting too deep (more than 512)");
        return 0;
      }
      if (v->len == 1 && strcmp(v->keys[0], "__bytes__") == 0 && v->items[0]->kind == TETHER_STRING) {
        buf_str(err, "a map whose only key is \"__bytes__\" with a string value is reserved for bytes");
        return 0;
      }
      size_t *order = xmalloc(v->len * sizeof *order);
      for (size_t k = 0; k < v->len; k++) order[k] = k;
      qsort_r(order, v->len, sizeof *order, cmp_index_keys, v->keys);
      buf_ch(b, '{');
      for (size_t j = 0; j < v->len; j++) {
        size_t k = order[j];
        if (j) buf_ch(b, ',');
        if (!valid_utf8(v->keys[k], strlen(v->keys[k]))) {
          buf_str(err, "key is not valid UTF-8");
          free(order);
          return 0;
        }
        put_escaped(b, v->keys[k], strlen(v->keys[k]));
        buf_ch(b, ':');
        if (!put(b, v->items[k], depth + 1, path, err)) {
          buf tmp = {0};
          buf_ch(&tmp, '[');
          put_escaped(&tmp, v->keys[k], strlen(v->keys[k]));
          buf_ch(&tmp, ']');
          if (path->n) buf_add(&tmp, path->p, path->n);
          free(path->p);
          *path = tmp;
          free(order);
          return 0;
        }
      }
      free(order);
      buf_ch(b, '}');
      return 1;
    }
  }
  return 1;
}

/* ------------------------------------------------------------ decoding */

typedef struct {
  const char *p, *end;
  char err[256]; /* the first codec error; parsing goes on */
  int syntax_ok;
} parser;

static void codec_err(parser *q, const char *fmt, ...) {
  if (q->err[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q->err, sizeof q->err, fmt, ap);
  va_end(ap);
}

static tether_value *fail(parser *q) {
  q->syntax_ok = 0;
  return NULL;
}

static void ws(parser *q) {
  while (q->p < q->end && (*q->p == ' ' || *q->p == '\t' || *q->p == '\n' || *q->p == '\r')) q->p++;
}

static int lit(parser *q, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(q->end - q->p) < n || memcmp(q->p, w, n) != 0) return 0;
  q->p += n;
  return 1;
}

static long hex4(parser *q) {
  if (q->end - q->p < 4) return -1;
  long v = 0;
  for (int k = 0; k < 4; k++) {
    char c = q->p[k];
    int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  q->p += 4;
  return v;
}

static void put_utf8(buf *o, long cp) {
  char t[4];
  if (cp < 0x80) {
    buf_ch(o, (char)cp);
  } else if (cp < 0x800) {
    t[0] = (char)(0xC0 | (cp >> 6)), t[1] = (char)(0x80 | (cp & 63));
    buf_add(o, t, 2);
  } else if (cp < 0x10000) {
    t[0] = (char)(0xE0 | (cp >> 12)), t[1] = (char)(0x80 | ((cp >> 6) & 63)), t[2] = (char)(0x80 | (cp & 63));
    buf_add(o, t, 3);
  } else {
    t[0] = (char)(0xF0 | (cp >> 18)), t[1] = (char)(0x80 | ((cp >> 12) & 63));
    t[2] = (char)(0x80 | ((cp >> 6) & 63)), t[3] = (char)(0x80 | (cp & 63));
    buf_add(o, t, 4);
  }
}

/* A string at q->p (its opening quote) into out. */
static int str(parser *q, buf *out) {
  q->p++;
  for (;;) {
    if (q->p >= q->end) return 0;
    unsigned char c = (unsigned char)*q->p;
    if (c == '"') {
      q->p++;
      buf_grow(out, 0);
      out->p[out->n] = 0; /* an empty string has no byte that terminated it */
      return 1;
    }
    if (c < 0x20) return 0;
    if (c >= 0x80) {
      int k = utf8_seq((const unsigned char *)q->p, q->end - q->p, 0);
      if (!k) {
        codec_err(q, "invalid UTF-8");
        k = 1;
      }
      buf_add(out, q->p, k);
      q->p += k;
      continue;
    }
    if (c != '\\') {
      buf_ch(out, (char)c);
      q->p++;
      continue;
    }
    q->p++;
    if (q->p >= q->end) return 0;
    char e = *q->p++;
    switch (e) {
      case '"': case '\\': case '/': buf_ch(out, e); break;
      case 'b': buf_ch(out, '\b'); break;
      case 'f': buf_ch(out, '\f'); break;
      case 'n': buf_ch(out, '\n'); break;
      case 'r': buf_ch(out, '\r'); break;
      case 't': buf_ch(out, '\t'); break;
      case 'u': {
        long cp = hex4(q);
        if (cp < 0) return 0;
        if (cp >= 0xD800 && cp < 0xDC00) {
          const char *save = q->p;
          long lo = -1;
          if (q->end - q->p >= 2 && q->p[0] == '\\' && q->p[1] == 'u') {
            q->p += 2;
            lo = hex4(q);
            if (lo < 0) return 0;
          }
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            codec_err(q, "lone surrogate escape in a string");
            q->p = lo < 0 ? save : q->p - 6;
            cp = 0xFFFD;
          }
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          codec_err(q, "lone surrogate escape in a string");
          cp = 0xFFFD;
        }
        put_utf8(out, cp);
        break;
      }
      default: return 0;
    }
  }
}

static int b64val(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Canonical standard base64 with padding only. */
static int base64_decode(const char *s, size_t n, buf *out) {
  if (n % 4) return 0;
  for (size_t i = 0; i < n; i += 4) {
    int last = i + 4 == n;
    int a = b64val(s[i]), b = b64val(s[i + 1]);
    if (a < 0 || b < 0) return 0;
    int c = s[i + 2] == '=' && last ? -2 : b64val(s[i + 2]);
    int d = s[i + 3] == '=' && last ? -2 : b64val(s[i + 3]);
    if (c == -1 || d == -1 || (c == -2 && d != -2)) return 0;
    char t[3];
    t[0] = (char)((a << 2) | (b >> 4));
    if (c == -2) {
      if (b & 15) return 0;
      buf_add(out, t, 1);
    } else if (d == -2) {
      if (c & 3) return 0;
      t[1] = (char)(((b & 15) << 4) | (c >> 2));
      buf_add(out, t, 2);
    } else {
      t[1] = (char)(((b & 15) << 4) | (c >> 2));
      t[2] = (char)(((c & 3) << 6) | d);
      buf_add(out, t, 3);
    }
  }
  return 1;
}

static tether_value *value(parser *q, int depth);

/* A list or map nested deeper than MAX_DEPTH: a codec error, and the value
 * is skipped, not parsed (no deep recursion). */
static tether_value *skip_deep(parser *q) {
  codec_err(q, "nesting too deep (more than 512)");
  int depth = 0;
  while (q->p < q->end) {
    char c = *q->p;
    if (c == '"') {
      buf tmp = {0};
      int ok = str(q, &tmp);
      free(tmp.p);
      if (!ok) return fail(q);
      continue;
    }
    q->p++;
    if (c == '[' || c == '{') depth++;
    else if ((c == ']' || c == '}') && --depth == 0) return tether_null();
  }
  return fail(q);
}

static tether_value *number(parser *q) {
  const char *s = q->p;
  if (q->p < q->end && *q->p == '-') q->p++;
  if (q->p < q->end && *q->p == 'I') {
    if (!lit(q, "Infinity")) return fail(q);
    codec_err(q, "-Infinity is not transferable");
    return tether_null();
  }
#define DIGIT (q->p < q->end && *q->p >= '0' && *q->p <= '9')
  if (!DIGIT) return fail(q);
  if (*q->p == '0') q->p++;
  else while (DIGIT) q->p++;
  int integer = 1;
  if (q->p < q->end && *q->p == '.') {
    integer = 0;
    q->p++;
    if (!DIGIT) return fail(q);
    while (DIGIT) q->p++;
  }
  if (q->p < q->end && (*q->p == 'e' || *q->p == 'E')) {
    integer = 0;
    q->p++;
    if (q->p < q->end && (*q->p == '+' || *q->p == '-')) q->p++;
    if (!DIGIT) return fail(q);
    while (DIGIT) q->p++;
  }
#undef DIGIT
  size_t n = q->p - s;
  char *text = xmalloc(n + 1);
  memcpy(text, s, n);
  text[n] = 0;
  tether_value *v;
  if (integer) {
    size_t digits = n - (s[0] == '-');
    if (digits > MAX_INT_DIGITS) codec_err(q, "integer has %zu digits, more than 4300", digits);
    errno = 0;
    char *endp;
    long long i = strtoll(text, &endp, 10);
    if (errno == 0 && *endp == 0) v = tether_int(i);
    else v = tether_bigint(text);
  } else {
    double d = strtod(text, NULL);
    if (isinf(d)) codec_err(q, "number %.40s overflows a float: not transferable", text);
    v = tether_float(d);
  }
  free(text);
  return v;
}

/* At a list's or map's opening bracket: consumes it and the white space
 * after it, and close too when it follows at once (the list or map is
 * empty). */
static int opens_empty(parser *q, char close) {
  q->p++;
  ws(q);
  if (q->p < q->end && *q->p == close) {
    q->p++;
    return 1;
  }
  return 0;
}

static tether_value *value(parser *q, int depth) {
  ws(q);
  if (q->p >= q->end) return fail(q);
  switch (*q->p) {
    case '[': {
      if (depth + 1 > MAX_DEPTH) return skip_deep(q);
      tether_value *l = tether_list();
      if (opens_empty(q, ']')) return l;
      for (;;) {
        tether_value *x = value(q, depth + 1);
        if (!x) return tether_free(l), NULL;
        push(l, NULL, x);
        ws(q);
        if (q->p >= q->end) return tether_free(l), fail(q);
        char c = *q->p++;
        if (c == ',') continue;
        if (c == ']') return l;
        return tether_free(l), fail(q);
      }
    }
    case '{': {
      if (depth + 1 > MAX_DEPTH) return skip_deep(q);
      tether_value *m = tether_map();
      if (opens_empty(q, '}')) return m;
      for (;;) {
        ws(q);
        if (q->p >= q->end || *q->p != '"') return tether_free(m), fail(q);
        buf key = {0};
        if (!str(q, &key)) return free(key.p), tether_free(m), fail(q);
        ws(q);
        if (q->p >= q->end || *q->p != ':') return free(key.p), tether_free(m), fail(q);
        q->p++;
        tether_value *x = value(q, depth + 1);
        if (!x) return free(key.p), tether_free(m), NULL;
        if (strlen(key.p) != key.n) codec_err(q, "a key with a NUL character is not supported");
        size_t dup = m->len;
        for (size_t k = 0; k < m->len && dup == m->len; k++)
          if (strcmp(m->keys[k], key.p) == 0) dup = k;
        if (dup < m->len) { /* refused, but the last one wins (a frame's id, as Python's json) */
          buf shown = {0};
          put_escaped(&shown, key.p, key.n);
          codec_err(q, "duplicate key %s", shown.p);
          free(shown.p);
          tether_free(m->items[dup]);
          m->items[dup] = x;
          free(key.p);
        } else {
          push(m, key.p, x);
        }
        ws(q);
        if (q->p >= q->end) return tether_free(m), fail(q);
        char c = *q->p++;
        if (c == ',') continue;
        if (c == '}') break;
        return tether_free(m), fail(q);
      }
      if (m->len == 1 && strcmp(m->keys[0], "__bytes__") == 0 && m->items[0]->kind == TETHER_STRING) {
        buf raw = {0};
        tether_value *b;
        if (base64_decode(m->items[0]->s, m->items[0]->n, &raw)) {
          b = tether_bytes(raw.p ? raw.p : "", raw.n);
        } else {
          codec_err(q, "invalid base64 in __bytes__: \"%.40s\"", m->items[0]->s);
          b = tether_bytes("", 0);
        }
        free(raw.p);
        tether_free(m);
        return b;
      }
      return m;
    }
    case '"': {
      buf s = {0};
      if (!str(q, &s)) return free(s.p), fail(q);
      tether_value *v = tether_string_n(s.p ? s.p : "", s.n);
      free(s.p);
      return v;
    }
    case 't': return lit(q, "true") ? tether_bool(1) : fail(q);
    case 'f': return lit(q, "false") ? tether_bool(0) : fail(q);
    case 'n': return lit(q, "null") ? tether_null() : fail(q);
    case 'N':
      if (!lit(q, "NaN")) return fail(q);
      codec_err(q, "NaN is not transferable");
      return tether_null();
    case 'I':
      if (!lit(q, "Infinity")) return fail(q);
      codec_err(q, "Infinity is not transferable");
      return tether_null();
    default: return number(q);
  }
}

/* The value of a whole text, or NULL when it is not JSON. */
static tether_value *parse(const char *p, size_t n, char *err, size_t errn) {
  parser q = {p, p + n, {0}, 1};
  tether_value *v = value(&q, 0);
  if (v) {
    ws(&q);
    if (q.p != q.end) {
      tether_free(v);
      v = NULL;
    }
  }
  snprintf(err, errn, "%s", q.err);
  return v;
}

/* ------------------------------------------------------------ the host */

typedef struct {
  const char *name;
  tether_func fn;
} entry;

static entry *registry;
static size_t registry_len;

void tether_register(const char *name, tether_func fn) {
  registry = xrealloc(registry, (registry_len + 1) * sizeof *registry);
  registry[registry_len].name = name;
  registry[registry_len++].fn = fn;
}

static int in_fd = -1, out_fd = -1, real_err = -1, log_fd[2] = {-1, -1};
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER, log_mu = PTHREAD_MUTEX_INITIALIZER;
static buf out;
static buf log_carry[2];
static int running;

static void write_all(const char *p, size_t n) {
  while (n) {
    ssize_t k = write(out_fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      _exit(0); /* the judge closed the channel: nobody is left to answer */
    }
    p += k;
    n -= (size_t)k;
  }
}

static void flush_out(void) {
  pthread_mutex_lock(&out_mu);
  if (out.n) write_all(out.p, out.n);
  out.n = 0;
  pthread_mutex_unlock(&out_mu);
}

static void send_line(const char *p, size_t n) {
  pthread_mutex_lock(&out_mu);
  buf_add(&out, p, n);
  pthread_mutex_unlock(&out_mu);
}

/* Whole lines of stream s go as log frames; all of it when final. */
static void emit_log(int s, int final) {
  buf *t = &log_carry[s];
  size_t cut = t->n;
  if (!final && cut < LOG_CHUNK) {
    while (cut > 0 && t->p[cut - 1] != '\n') cut--;
  }
  size_t back = 0;
  while (back < 3 && back < cut && ((unsigned char)t->p[cut - 1 - back] & 0xC0) == 0x80) back++;
  if (back < cut) {
    unsigned char lead = (unsigned char)t->p[cut - 1 - back];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (lead >= 0xC0 && need > back + 1) cut = cut - 1 - back;
  }
  for (size_t i = 0; i < cut; i += LOG_CHUNK) {
    size_t n = cut - i < LOG_CHUNK ? cut - i : LOG_CHUNK;
    buf f = {0};
    buf_str(&f, s ? "{\"type\":\"log\",\"stream\":\"stderr\",\"data\":" : "{\"type\":\"log\",\"stream\":\"stdout\",\"data\":");
    put_escaped(&f, t->p + i, n);
    buf_str(&f, "}\n");
    send_line(f.p, f.n);
    free(f.p);
  }
  memmove(t->p, t->p + cut, t->n - cut);
  t->n -= cut;
}

static int drain_logs(int final) {
  if (log_fd[0] < 0) return 0;
  /* One poll(2) tells whether either pipe holds output: the common call
     prints nothing and costs this one system call, not a read of each. */
  struct pollfd ready[2] = {{log_fd[0], POLLIN, 0}, {log_fd[1], POLLIN, 0}};
  int r = poll(ready, 2, 0);
  pthread_mutex_lock(&log_mu);
  if (r <= 0 && !(final && (log_carry[0].n || log_carry[1].n))) {
    pthread_mutex_unlock(&log_mu);
    return 0;
  }
  int any = 0;
  char tmp[65536];
  for (int s = 0; s < 2; s++) {
    for (;;) {
      if (r <= 0) break;
      ssize_t n = read(log_fd[s], tmp, sizeof tmp);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      any = 1;
      if (s == 1 && real_err >= 0) {
        ssize_t ignored = write(real_err, tmp, (size_t)n);
        (void)ignored;
      }
      buf_add(&log_carry[s], tmp, (size_t)n);
      emit_log(s, 0);
    }
    if (final && log_carry[s].n) {
      emit_log(s, 1);
      any = 1;
    }
  }
  pthread_mutex_unlock(&log_mu);
  return any;
}

static void *pump(void *arg) {
  (void)arg;
  for (;;) {
    struct pollfd fds[2] = {{log_fd[0], POLLIN, 0}, {log_fd[1], POLLIN, 0}};
    if (poll(fds, 2, -1) > 0 && drain_logs(0)) flush_out();
  }
  return NULL;
}

/* Input: lines from the judge, the longest skipped whole. */
static buf in;
static size_t in_pos;
static int in_eof, in_skipping;

static int read_more(void) {
  flush_out();
  char tmp[65536];
  ssize_t n;
  do n = read(in_fd, tmp, sizeof tmp);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    in_eof = 1;
    return 0;
  }
  if (in_pos) {
    memmove(in.p, in.p + in_pos, in.n - in_pos);
    in.n -= in_pos;
    in_pos = 0;
  }
  size_t old = in.n;
  buf_add(&in, tmp, (size_t)n);
  if (!memchr(in.p + old, '\n', (size_t)n) && in.n > MAX_LINE) {
    in.n = 0;
    in_skipping = 1;
  }
  return 1;
}

/* The next line (pointer into in, valid until the next call), or NULL at EOF. */
static char *next_line(size_t *len) {
  for (;;) {
    char *nl = in.n > in_pos ? memchr(in.p + in_pos, '\n', in.n - in_pos) : NULL;
    if (nl) {
      char *start = in.p + in_pos;
      in_pos = (size_t)(nl - in.p) + 1;
      if (in_skipping) {
        in_skipping = 0;
        continue;
      }
      *len = (size_t)(nl - start);
      return start;
    }
    if (in_eof) {
      if (in_pos < in.n && !in_skipping) {
        char *start = in.p + in_pos;
        *len = in.n - in_pos;
        in_pos = in.n;
        return start;
      }
      return NULL;
    }
    read_more();
  }
}

/* Calls read while a capability was pending, answered after it. */
static char **queued;
static size_t *queued_len;
static size_t queued_n, queued_head;

static void error_frame(buf *b, const char *id, const char *code, const char *message) {
  buf_str(b, "{\"type\":\"error\",\"id\":");
  put_escaped(b, id, strlen(id));
  buf_str(b, ",\"code\":\"");
  buf_str(b, code);
  buf_str(b, "\",\"message\":");
  put_escaped(b, message, strlen(message));
  if (strcmp(code, "Exception") == 0) {
    buf_str(b, ",\"trace\":");
    put_escaped(b, message, strlen(message));
  }
  buf_str(b, "}\n");
}

static const char *str_member(const tether_value *f, const char *key) {
  const tether_value *v = tether_get(f, key);
  return v && v->kind == TETHER_STRING ? v->s : NULL;
}

/* Runs fn; 0 when a tether_as_* call refused an argument (reject_text). */
static int invoke(tether_func fn, const tether_value *args, tether_value **result) {
  jmp_buf jump;
  if (setjmp(jump) != 0) {
    call_jump = NULL;
    return 0;
  }
  call_jump = &jump;
  *result = fn(args);
  call_jump = NULL;
  return 1;
}

static void answer(const tether_value *f, const char *codec_error, buf *b) {
  const char *id = str_member(f, "id");
  if (codec_error[0]) {
    char m[300];
    snprintf(m, sizeof m, "args: %s", codec_error);
    error_frame(b, id, "Rejected", m);
    return;
  }
  const tether_value *fnv = tether_get(f, "fn");
  const char *name = str_member(f, "fn");
  tether_func fn = NULL;
  for (size_t k = 0; name && k < registry_len; k++)
    if (strcmp(registry[k].name, name) == 0) fn = registry[k].fn;
  if (!fn) {
    buf m = {0};
    if (name) {
      buf_str(&m, "function '");
      buf_str(&m, name);
      buf_str(&m, "' not registered");
    } else {
      buf_str(&m, "function ");
      buf shown = {0}, path = {0}, err = {0};
      if (!put(&shown, fnv, 0, &path, &err)) buf_str(&shown, "?");
      buf_add(&m, shown.p ? shown.p : "null", shown.p ? shown.n : 4);
      buf_str(&m, " not registered");
      free(shown.p), free(path.p), free(err.p);
    }
    error_frame(b, id, "NotFound", m.p);
    free(m.p);
    return;
  }
  const tether_value *args = tether_get(f, "args");
  tether_value empty = {0};
  empty.kind = TETHER_LIST;
  if (!args) args = &empty;
  if (args->kind != TETHER_LIST) {
    error_frame(b, id, "Rejected", "args must be an array");
    return;
  }
  free(thrown);
  thrown = NULL;
  tether_value *result = NULL;
  if (!invoke(fn, args, &result)) {
    error_frame(b, id, "Rejected", reject_text);
    return;
  }
  if (thrown) {
    tether_free(result);
    error_frame(b, id, "Exception", thrown);
    return;
  }
  size_t start = b->n;
  buf_str(b, "{\"type\":\"result\",\"id\":");
  put_escaped(b, id, strlen(id));
  buf_str(b, ",\"value\":");
  buf path = {0}, err = {0};
  int ok = put(b, result, 0, &path, &err);
  tether_free(result);
  if (!ok) {
    b->n = start;
    buf m = {0};
    buf_str(&m, "value");
    if (path.n) buf_add(&m, path.p, path.n);
    buf_str(&m, ": ");
    buf_str(&m, err.p);
    error_frame(b, id, "Rejected", m.p);
    free(m.p), free(path.p), free(err.p);
    return;
  }
  buf_str(b, "}\n");
  if (b->n - start - 1 > MAX_FRAME) {
    char m[80];
    snprintf(m, sizeof m, "frame size %zu > %d", b->n - start - 1, MAX_FRAME);
    b->n = start;
    error_frame(b, id, "Rejected", m);
  }
}

/* Parses a line as a frame: its type and the frame, or NULL. */
static tether_value *frame_of(const char *line, size_t n, char *err, size_t errn, const char **type) {
  tether_value *f = parse(line, n, err, errn);
  if (!f || f->kind != TETHER_MAP || !(*type = str_member(f, "type"))) {
    tether_free(f);
    return NULL;
  }
  return f;
}

/* The capability being waited for, and its answer. */
static const char *waiting_id;
static tether_value *waiting_answer;
static char waiting_error[256];

/* Handles a line read while not serving a call; returns a call frame to
 * run now (when queue is 0) or NULL. */
static void route(const char *line, size_t n, int queue, tether_value **call, char *err, size_t errn) {
  const char *type = NULL;
  *call = NULL;
  tether_value *f = frame_of(line, n, err, errn, &type);
  if (!f) return;
  const char *id = str_member(f, "id");
  if (strcmp(type, "call") == 0 && id && id[0]) {
    if (!queue) {
      *call = f;
      return;
    }
    queued = xrealloc(queued, (queued_n + 1) * sizeof *queued);
    queued_len = xrealloc(queued_len, (queued_n + 1) * sizeof *queued_len);
    queued[queued_n] = xmalloc(n + 1);
    memcpy(queued[queued_n], line, n);
    queued_len[queued_n++] = n;
  } else if ((strcmp(type, "result") == 0 || strcmp(type, "error") == 0) && id && waiting_id &&
             strcmp(id, waiting_id) == 0 && !waiting_answer) {
    waiting_answer = f;
    snprintf(waiting_error, sizeof waiting_error, "%s", err);
    return;
  } else if (strcmp(type, "shutdown") == 0) {
    in_eof = 1;
    in.n = in_pos = 0;
  }
  tether_free(f);
}

static char cap_code[64], cap_message[4096];
const char *tether_capability_code(void) { return cap_code; }
const char *tether_capability_message(void) { return cap_message; }

static tether_value *cap_fail(const char *code, const char *message) {
  snprintf(cap_code, sizeof cap_code, "%s", code);
  snprintf(cap_message, sizeof cap_message, "%s", message);
  return NULL;
}

static unsigned long long id_state;

tether_value *tether_call_capability(const char *name, tether_value *args) {
  if (!args) args = tether_list();
  if (!running) return tether_free(args), cap_fail("", "not running under the tether solution host");
  if (in_eof) return tether_free(args), cap_fail("", "channel to the judge closed (stdin EOF)");
  char id[40];
  unsigned long long z = (id_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  snprintf(id, sizeof id, "%016llx%016llx", z ^ (z >> 31), id_state);
  buf f = {0}, path = {0}, err = {0};
  buf_str(&f, "{\"type\":\"capability\",\"id\":\"");
  buf_str(&f, id);
  buf_str(&f, "\",\"name\":");
  put_escaped(&f, name, strlen(name));
  buf_str(&f, ",\"args\":");
  int ok = put(&f, args, 0, &path, &err);
  tether_free(args);
  if (!ok) {
    char m[512];
    snprintf(m, sizeof m, "args%s: %s", path.p ? path.p : "", err.p);
    free(f.p), free(path.p), free(err.p);
    return cap_fail("Rejected", m);
  }
  buf_str(&f, "}\n");
  fflush(stdout);
  fflush(stderr);
  drain_logs(1);
  send_line(f.p, f.n);
  free(f.p);
  flush_out();
  waiting_id = id;
  waiting_answer = NULL;
  for (;;) {
    size_t n;
    char *line = next_line(&n);
    if (!line) break;
    tether_value *call;
    char e[256];
    route(line, n, 1, &call, e, sizeof e);
    if (waiting_answer) break;
  }
  waiting_id = NULL;
  tether_value *a = waiting_answer;
  waiting_answer = NULL;
  if (!a) return cap_fail("", "channel to the judge closed (stdin EOF)");
  if (waiting_error[0]) {
    tether_free(a);
    return cap_fail("Rejected", waiting_error);
  }
  if (strcmp(str_member(a, "type"), "result") == 0) {
    const tether_value *v = tether_get(a, "value");
    tether_value *copy = tether_copy(v);
    tether_free(a);
    cap_code[0] = cap_message[0] = 0;
    return copy;
  }
  const char *code = str_member(a, "code"), *message = str_member(a, "message");
  cap_fail(code ? code : "SystemError", message ? message : "");
  tether_free(a);
  return NULL;
}

static void on_term(int sig) {
  (void)sig;
  _exit(0);
}

/* Before the solution's own constructors: the protocol moves to private
 * descriptors, fd 0 reads /dev/null, fd 1 and fd 2 become log pipes. */
__attribute__((constructor(101))) static void setup(void) {
  in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
  out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  real_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (in_fd < 0 || out_fd < 0) _exit(1);
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    close(null_fd);
  }
  for (int s = 0; s < 2; s++) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) continue;
    dup2(p[1], s + 1);
    close(p[1]);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    log_fd[s] = p[0];
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  id_state = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20) ^ ((unsigned long long)getpid() << 40);
  if (log_fd[0] >= 0 && log_fd[1] >= 0) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    if (pthread_create(&t, &attr, pump, NULL) == 0) pthread_detach(t);
    pthread_attr_destroy(&attr);
  }
}

int main(void) {
  running = 1;
  fflush(stdout);
  fflush(stderr);
  send_line("{\"type\":\"ready\"}\n", 17);
  drain_logs(1);
  flush_out();
  buf a = {0};
  for (;;) {
    tether_value *call = NULL;
    char err[256];
    if (queued_head < queued_n) {
      const char *type;
      call = frame_of(queued[queued_head], queued_len[queued_head], err, sizeof err, &type);
      free(queued[queued_head++]);
      if (queued_head == queued_n) queued_head = queued_n = 0;
    } else {
      size_t n;
      char *line = next_line(&n);
      if (!line) break;
      route(line, n, 0, &call, err, sizeof err);
    }
    if (!call) continue;
    a.n = 0;
    answer(call, err, &a);
    tether_free(call);
    fflush(stdout);
    fflush(stderr);
    drain_logs(1);
    send_line(a.p, a.n);
  }
  fflush(stdout);
  fflush(stderr);
  drain_logs(1);
  flush_out();
  _exit(0);
}
