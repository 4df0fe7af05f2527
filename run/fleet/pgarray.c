/* pgarray.c — see pgarray.h (array input syntax: PostgreSQL manual, 8.15.6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgarray.h"

char *pg_text_array(const char *const *items, size_t n)
{
    size_t cap = 3;
    for (size_t i = 0; i < n; i++)
        cap += 2 * strlen(items[i]) + 3;
    char *s = malloc(cap), *o = s;
    if (!s)
        return NULL;
    *o++ = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = ',';
        *o++ = '"';
        for (const char *p = items[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                *o++ = '\\';
            *o++ = *p;
        }
        *o++ = '"';
    }
    *o++ = '}';
    *o = 0;
    return s;
}

char *pg_bigint_array(const long long *v, size_t n)
{
    char *s = malloc(n * 21 + 3), *o = s;
    if (!s)
        return NULL;
    *o++ = '{';
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "%s%lld", i ? "," : "", v[i]);
    *o++ = '}';
    *o = 0;
    return s;
}
