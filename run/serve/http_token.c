/* http_token.c — the bearer token of `serve --http` (http_token.h). */
#include "http_token.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"

int http_token_read(const char *path, char *token, size_t cap, struct sp_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return sp_fail(e, -errno, "--http-token-file %s: %s", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) < 0) {
        rc = sp_fail(e, -errno, "--http-token-file %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        rc = sp_fail(e, -EINVAL, "--http-token-file %s: it is %s, not a regular file", path,
                     file_kind(st.st_mode));
    } else if (st.st_mode & S_IROTH) {
        rc = sp_fail(e, -EINVAL, "--http-token-file %s: mode %04o lets every user read the "
                     "token: chmod o-r it", path, (unsigned)(st.st_mode & 07777));
    } else if ((uint64_t)st.st_size >= cap) {
        rc = sp_fail(e, -EINVAL, "--http-token-file %s: %lld bytes; a token file holds at "
                     "most %zu", path, (long long)st.st_size, cap - 1);
    }
    ssize_t n = 0;
    if (rc == 0 && (n = pread(fd, token, cap - 1, 0)) < 0)
        rc = sp_fail(e, -errno, "--http-token-file %s: %s", path, strerror(errno));
    close(fd);
    if (rc < 0)
        return rc;
    token[n] = 0;
    while (n > 0 && (token[n - 1] == '\n' || token[n - 1] == '\r'))
        token[--n] = 0;
    if (n == 0)
        return sp_fail(e, -EINVAL, "--http-token-file %s: empty: expected one line, the token",
                       path);
    for (ssize_t i = 0; i < n; i++)
        if ((unsigned char)token[i] <= ' ' || (unsigned char)token[i] >= 0x7f)
            return sp_fail(e, -EINVAL, "--http-token-file %s: byte %zd of the token is not a "
                           "printable ASCII character other than space (one line expected)",
                           path, i + 1);
    return 0;
}

int http_token_ok(const char *token, const char *authorization)
{
    static const char scheme[] = "Bearer ";
    if (!authorization || strncmp(authorization, scheme, sizeof(scheme) - 1) != 0)
        return 0;
    const char *given = authorization + sizeof(scheme) - 1;
    size_t tl = strlen(token), gl = strlen(given);
    /* the time depends on the given length only, never on where they differ */
    unsigned char diff = tl != gl;
    for (size_t i = 0; i < gl; i++)
        diff |= (unsigned char)given[i] ^ (unsigned char)token[i < tl ? i : 0];
    return diff == 0;
}
