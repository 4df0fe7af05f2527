/* pgarray.h — PostgreSQL array literals ({"a","b"}) for text parameters. */
#ifndef SLOTPROVE_PGARRAY_H
#define SLOTPROVE_PGARRAY_H

#include <stddef.h>

/* A text[] literal of n strings, each quoted with '"' and '\' escaped;
 * malloc'd (free it), or NULL when out of memory. */
char *pg_text_array(const char *const *items, size_t n);

/* A bigint[] literal of n values; malloc'd, or NULL. */
char *pg_bigint_array(const long long *v, size_t n);

#endif
