/* tether.h: the C (C11) solution host of tether (docs/languages.md, "C").
 *
 *     #include "tether.h"
 *     tether_value *add(const tether_value *args) {
 *       return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));
 *     }
 *     TETHER_EXPORT(add)
 *
 * A function takes its arguments as one list value and returns a new value
 * (the host frees it), or NULL for null. To fail the call, return
 * tether_throw("ValueError", "bad input %d", x): the evaluator gets an
 * Exception "ValueError: bad input 7". A value of the wrong kind read with
 * tether_as_* fails the call as Rejected. The build compiles tether.c (the
 * host's main) with the solution; anything written to stdout or stderr is
 * sent as log frames. Values passed to a function belong to the host.
 */
#ifndef TETHER_H
#define TETHER_H

#include <stddef.h>

typedef struct tether_value tether_value;

typedef enum {
  TETHER_NULL,
  TETHER_BOOL,
  TETHER_INT,     /* fits long long */
  TETHER_BIGINT,  /* beyond 64 bits: tether_as_string gives its digits */
  TETHER_FLOAT,
  TETHER_STRING,
  TETHER_BYTES,
  TETHER_LIST,
  TETHER_MAP
} tether_kind;

typedef tether_value *(*tether_func)(const tether_value *args);

/* Makes fn callable as name (TETHER_EXPORT does it before main). */
void tether_register(const char *name, tether_func fn);

#define TETHER_EXPORT(fn)                                                   \
  __attribute__((constructor)) static void tether_export_##fn(void) {      \
    tether_register(#fn, fn);                                               \
  }

/* Building values (each returns a new value). */
tether_value *tether_null(void);
tether_value *tether_bool(int b);
tether_value *tether_int(long long i);
tether_value *tether_bigint(const char *digits);
tether_value *tether_float(double d);
tether_value *tether_string(const char *utf8);
tether_value *tether_string_n(const char *utf8, size_t n);
tether_value *tether_bytes(const void *data, size_t n);
tether_value *tether_list(void);
tether_value *tether_map(void);
/* Appends item to list / sets map[key] = item; the container takes item. */
void tether_append(tether_value *list, tether_value *item);
void tether_set(tether_value *map, const char *key, tether_value *item);
tether_value *tether_copy(const tether_value *v);
void tether_free(tether_value *v);

/* Reading values. NULL reads as null. */
tether_kind tether_kind_of(const tether_value *v);
size_t tether_len(const tether_value *v);                     /* list, map, string, bytes */
const tether_value *tether_at(const tether_value *list, size_t i);  /* NULL past the end */
const tether_value *tether_get(const tether_value *map, const char *key);
const char *tether_key(const tether_value *map, size_t i);
const tether_value *tether_value_at(const tether_value *map, size_t i);
/* These fail the call as Rejected when v is of another kind. */
int tether_as_bool(const tether_value *v);
long long tether_as_int(const tether_value *v);
double tether_as_float(const tether_value *v); /* an integer converts */
const char *tether_as_string(const tether_value *v); /* NUL-terminated; also bigint digits */
/* tether_as_string, refusing a string with a NUL character inside (the call
 * fails as Rejected): the generated glue's read of a declared string. */
const char *tether_as_c_string(const tether_value *v);
const unsigned char *tether_as_bytes(const tether_value *v, size_t *n);

/* Fails the current call with an Exception "type: message"; returns NULL
 * so that a function can `return tether_throw(...)`. */
tether_value *tether_throw(const char *type, const char *fmt, ...);

/* Calls the evaluator's capability name with args (a list, taken). Returns
 * the value (the caller frees it), or NULL when it failed: then
 * tether_capability_code() is the wire code ("NotFound", "Rejected",
 * "CallTimeout", ..., "" for a closed channel) and
 * tether_capability_message() its text. */
tether_value *tether_call_capability(const char *name, tether_value *args);
const char *tether_capability_code(void);
const char *tether_capability_message(void);

#endif
