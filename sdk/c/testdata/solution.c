/* The functions sdk/internal/hosttest calls, in C. */
#include "tether.h"

#include <stdio.h>
#include <string.h>

tether_value *add(const tether_value *args) {
  if (tether_len(args) != 2) return tether_throw("TypeError", "add takes 2 arguments");
  return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));
}
TETHER_EXPORT(add)

tether_value *echo(const tether_value *args) { return tether_copy(tether_at(args, 0)); }
TETHER_EXPORT(echo)

tether_value *fail(const tether_value *args) {
  (void)args;
  return tether_throw("ZeroDivisionError", "division by zero");
}
TETHER_EXPORT(fail)

tether_value *shout(const tether_value *args) {
  const char *s = tether_as_string(tether_at(args, 0));
  printf("out:%s\n", s);
  fprintf(stderr, "err:%s\n", s);
  return tether_int((long long)strlen(s));
}
TETHER_EXPORT(shout)

tether_value *twice(const tether_value *args) {
  tether_value *a = tether_list();
  tether_append(a, tether_int(tether_as_int(tether_at(args, 0))));
  tether_value *r = tether_call_capability("double", a);
  if (!r) return tether_throw("CapabilityError", "%s: %s", tether_capability_code(), tether_capability_message());
  long long v = tether_as_int(r);
  tether_free(r);
  return tether_int(v + 1);
}
TETHER_EXPORT(twice)

tether_value *capcode(const tether_value *args) {
  tether_value *r = tether_call_capability(tether_as_string(tether_at(args, 0)), NULL);
  if (r) {
    tether_free(r);
    return tether_string("ok");
  }
  return tether_string(tether_capability_code());
}
TETHER_EXPORT(capcode)
