/* random.c — see random.h. */
#include "random.h"

#include <errno.h>
#include <sys/random.h>

int random_below(uint64_t out[4], const uint64_t m[4])
{
    int top = 3;
    while (top > 0 && m[top] == 0)
        top--;
    uint64_t mask = m[top] ? ~0ull >> __builtin_clzll(m[top]) : 0;
    for (;;) {
        size_t got = 0;
        while (got < 32) {
            ssize_t n = getrandom((uint8_t *)out + got, 32 - got, 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return -errno;
            }
            got += (size_t)n;
        }
        for (int i = top + 1; i < 4; i++)
            out[i] = 0;
        out[top] &= mask;
        for (int i = 3; i >= 0; i--) {
            if (out[i] != m[i]) {
                if (out[i] < m[i])
                    return 0;
                break;
            }
        }
    }
}
