/* Bytes and nested values, nothing but the function: bytes and records
 * (Meta, Transformed) are tether_values; the host frees the result. */
#include <stdlib.h>

tether_value *transform(const tether_value *blob, const tether_value *meta) {
  size_t n;
  const unsigned char *b = tether_as_bytes(blob, &n);
  unsigned char *reversed = malloc(n + 1), *complement = malloc(n + 1);
  if (!reversed || !complement) abort();
  for (size_t i = 0; i < n; i++) {
    reversed[i] = b[n - 1 - i];
    complement[i] = (unsigned char)(255 - b[i]);
  }
  tether_value *stats = tether_map();
  tether_set(stats, "raw", tether_bytes("\x00\xff", 2));
  tether_set(stats, "size", tether_int((long long)n));
  tether_set(stats, "half", tether_float(n / 2.0));
  tether_value *out = tether_map();
  tether_set(out, "reversed", tether_bytes(reversed, n));
  tether_set(out, "complement", tether_bytes(complement, n));
  tether_set(out, "meta", tether_copy(meta));
  tether_set(out, "stats", stats);
  free(reversed);
  free(complement);
  return out;
}
