/* escape.c — see escape.h. */
#include "escape.h"

#include <stdio.h>
#include <string.h>

size_t escape_ctl(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s; s++) {
        char esc[5];
        size_t len = 1;
        if (*s == '\n')
            memcpy(esc, "\\n", len = 2);
        else if (*s == '\r')
            memcpy(esc, "\\r", len = 2);
        else if (*s == '\t')
            memcpy(esc, "\\t", len = 2);
        else if (*s < 0x20 || *s == 0x7f)
            len = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *s);
        else
            esc[0] = (char)*s;
        if (n + len >= cap)
            break;
        memcpy(dst + n, esc, len);
        n += len;
    }
    dst[n] = 0;
    return n;
}

void escape_ctl_inplace(char *buf, size_t cap)
{
    int clean = 1;
    for (const unsigned char *s = (const unsigned char *)buf; *s && clean; s++)
        clean = *s >= 0x20 && *s != 0x7f;
    if (clean)
        return;
    char copy[cap];
    memcpy(copy, buf, cap);
    copy[cap - 1] = 0;
    escape_ctl(buf, cap, copy);
}
