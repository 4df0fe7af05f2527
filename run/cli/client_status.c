/* client_status.c — `slotprove status` without --json: the daemon's status
 * object as indented "key: value" lines, arrays of objects as tables. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_conn.h"
#include "client_status.h"

#define TABLE_CELL_MAX 48 /* status tables truncate wider cells */
#define TABLE_COLS_MAX 32

/* Text of a scalar (or, compactly, of a nested value) for one line or cell. */
static char *value_text(json_t *v)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_STRING: {
        char *s = strdup(json_string_value(v));
        if (s)
            client_sanitize(s);
        return s;
    }
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        return strdup(buf);
    case JSON_REAL:
        snprintf(buf, sizeof(buf), "%.6g", json_real_value(v));
        return strdup(buf);
    case JSON_TRUE: return strdup("true");
    case JSON_FALSE: return strdup("false");
    case JSON_NULL: return strdup("-");
    default: {
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        if (s)
            client_sanitize(s);
        return s;
    }
    }
}

static int is_scalar(json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

static void print_key(const char *key, int indent)
{
    char *k = strdup(key);
    if (k)
        client_sanitize(k);
    printf("%*s%s:", indent, "", k ? k : "?");
    free(k);
}

/* Prints an array of objects as a table: one column per key (first seen
 * order), one row per object, "-" where a row lacks the key. */
static void print_table(json_t *rows, int indent)
{
    const char *cols[TABLE_COLS_MAX];
    size_t ncols = 0, width[TABLE_COLS_MAX], i, k;
    json_t *row, *v;
    const char *key;

    json_array_foreach(rows, i, row) {
        json_object_foreach(row, key, v) {
            size_t j = 0;
            while (j < ncols && strcmp(cols[j], key) != 0)
                j++;
            if (j == ncols && ncols < TABLE_COLS_MAX)
                cols[ncols++] = key;
        }
    }
    for (k = 0; k < ncols; k++) {
        width[k] = strlen(cols[k]);
        json_array_foreach(rows, i, row) {
            json_t *cell = json_object_get(row, cols[k]);
            char *t = cell ? value_text(cell) : NULL;
            size_t w = t ? strlen(t) : 1;
            if (w > width[k])
                width[k] = w;
            free(t);
        }
        if (width[k] > TABLE_CELL_MAX)
            width[k] = TABLE_CELL_MAX;
    }
    printf("%*s", indent, "");
    for (k = 0; k < ncols; k++) {
        char *h = strdup(cols[k]);
        if (h)
            client_sanitize(h);
        if (k + 1 < ncols)
            printf("%-*.*s  ", (int)width[k], (int)width[k], h ? h : "?");
        else
            printf("%.*s\n", (int)width[k], h ? h : "?");
        free(h);
    }
    json_array_foreach(rows, i, row) {
        printf("%*s", indent, "");
        for (k = 0; k < ncols; k++) {
            json_t *cell = json_object_get(row, cols[k]);
            char *t = cell ? value_text(cell) : NULL;
            const char *s = t ? t : "-";
            if (strlen(s) > width[k] && width[k] > 3)
                printf("%.*s...", (int)width[k] - 3, s);
            else if (k + 1 < ncols)
                printf("%-*.*s", (int)width[k], (int)width[k], s);
            else
                printf("%.*s", (int)width[k], s);
            fputs(k + 1 < ncols ? "  " : "\n", stdout);
            free(t);
        }
    }
}

/* Prints "key: value", or "key:" and the nested value indented below it. */
static void print_node(const char *key, json_t *v, int indent)
{
    size_t i, n;
    json_t *x;
    const char *k;

    if (is_scalar(v)) {
        char *t = value_text(v);
        print_key(key, indent);
        printf(" %s\n", t ? t : "?");
        free(t);
        return;
    }
    if (json_is_object(v)) {
        print_key(key, indent);
        if (json_object_size(v) == 0) {
            printf(" (none)\n");
            return;
        }
        putchar('\n');
        json_object_foreach(v, k, x)
            print_node(k, x, indent + 2);
        return;
    }
    n = json_array_size(v);
    int scalars = 1, objects = 1;
    json_array_foreach(v, i, x) {
        scalars &= is_scalar(x);
        objects &= json_is_object(x);
    }
    print_key(key, indent);
    if (n == 0) {
        printf(" (none)\n");
    } else if (scalars) {
        json_array_foreach(v, i, x) {
            char *t = value_text(x);
            printf("%s%s", i ? ", " : " ", t ? t : "?");
            free(t);
        }
        putchar('\n');
    } else if (objects) {
        putchar('\n');
        print_table(v, indent + 2);
    } else {
        putchar('\n');
        json_array_foreach(v, i, x) {
            char idx[32];
            snprintf(idx, sizeof(idx), "[%zu]", i);
            print_node(idx, x, indent + 2);
        }
    }
}

void client_print_status(json_t *status)
{
    const char *k;
    json_t *v;
    json_object_foreach(status, k, v)
        print_node(k, v, 0);
}
