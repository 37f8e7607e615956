/* Reverse the words, nothing but the function. The host copies a string
 * result, so it may live in a buffer the solution keeps (here one that
 * grows to the longest sentence: the words never take more room). */
#include <stdlib.h>
#include <string.h>

const char *solve(const char *s) {
  static char *out;
  static size_t cap;
  size_t n = 0, end = strlen(s);
  if (cap < end + 1) {
    free(out);
    cap = end + 1;
    out = malloc(cap);
    if (!out) abort();
  }
  while (end > 0) {
    while (end > 0 && s[end - 1] == ' ') end--;
    size_t start = end;
    while (start > 0 && s[start - 1] != ' ') start--;
    if (start == end) break;
    if (n > 0) out[n++] = ' ';
    memcpy(out + n, s + start, end - start);
    n += end - start;
    end = start;
  }
  out[n] = '\0';
  return out;
}
