/* A + B in C, nothing but the function: a bigint is a tether_value,
 * TETHER_INT or, beyond 64 bits, TETHER_BIGINT (tether_as_string gives its
 * digits); the sum is computed in 128 bits. The judge includes tether.h and
 * exports add. */
static __int128 wide(const tether_value *v) {
  if (tether_kind_of(v) == TETHER_INT) return tether_as_int(v);
  const char *s = tether_as_string(v);
  int neg = *s == '-';
  __int128 n = 0;
  for (s += neg; *s; s++) n = n * 10 + (*s - '0');
  return neg ? -n : n;
}

static tether_value *narrow(__int128 n) {
  if (n >= -9223372036854775807LL - 1 && n <= 9223372036854775807LL) return tether_int((long long)n);
  char digits[48], *p = digits + sizeof digits - 1;
  unsigned __int128 u = n < 0 ? -(unsigned __int128)n : (unsigned __int128)n;
  *p = '\0';
  do *--p = (char)('0' + (int)(u % 10)); while (u /= 10);
  if (n < 0) *--p = '-';
  return tether_bigint(p);
}

tether_value *add(const tether_value *a, const tether_value *b) { return narrow(wide(a) + wide(b)); }
