/* http_access.c — who may use `serve --http` (http_access.h). */
#include "http_access.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"

int http_resolve(const char *opt, const char *addr_port, struct addrinfo **ai, struct sp_err *e)
{
    char host[256];
    const char *colon = strrchr(addr_port, ':');
    const char *h = addr_port;
    size_t hl = colon ? (size_t)(colon - addr_port) : 0;
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || hl == 0 || hl >= sizeof(host) || *end || port < 1 || port > 65535)
        return sp_fail(e, -EINVAL, "%s %s: expected ADDR:PORT (e.g. 127.0.0.1:9080, "
                       "[::1]:9080)", opt, addr_port);
    memcpy(host, h, hl);
    host[hl] = 0;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
    int grc = getaddrinfo(host, colon + 1, &hints, ai);
    if (grc != 0)
        return sp_fail(e, -EINVAL, "%s %s: %s", opt, addr_port, gai_strerror(grc));
    return 0;
}

int http_is_loopback(const struct addrinfo *ai)
{
    if (ai->ai_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)ai->ai_addr;
        return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
    }
    if (ai->ai_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ai->ai_addr;
        return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
    }
    return 0;
}

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
