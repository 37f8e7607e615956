/* See solution.py: add, and add_* misbehaving one way each. */
#include "tether.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long arg(const tether_value *args, int i) { return tether_as_int(tether_at(args, i)); }

tether_value *add(const tether_value *args) { return tether_int(arg(args, 0) + arg(args, 1)); }
TETHER_EXPORT(add)

tether_value *add_wrong(const tether_value *args) { return tether_int(arg(args, 0) - arg(args, 1)); }
TETHER_EXPORT(add_wrong)

tether_value *add_crash(const tether_value *args) {
  (void)args;
  abort();
}
TETHER_EXPORT(add_crash)

tether_value *add_throw(const tether_value *args) {
  (void)args;
  return tether_throw("ValueError", "no such case");
}
TETHER_EXPORT(add_throw)

tether_value *add_spin(const tether_value *args) {
  (void)args;
  for (volatile long long i = 0;; i++) {
  }
}
TETHER_EXPORT(add_spin)

tether_value *add_hog(const tether_value *args) {
  static char *keep[64];
  (void)args;
  for (int i = 0; i < 64; i++) {
    keep[i] = malloc(16 << 20);
    if (!keep[i]) abort();
    memset(keep[i], 1, 16 << 20);
  }
  return tether_int(64);
}
TETHER_EXPORT(add_hog)

tether_value *add_chatty(const tether_value *args) {
  printf("chatty: %lld + %lld\n", arg(args, 0), arg(args, 1));
  return tether_int(arg(args, 0) + arg(args, 1));
}
TETHER_EXPORT(add_chatty)
