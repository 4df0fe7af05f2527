/*
 * witness.c — see fleet.h: witnesses travel by reference (a path on storage
 * every host mounts), pinned by size and SHA-256 at submit and checked
 * again by the host that reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet.h"

int witness_hash_fd(int fd, const char *name, char hex[65], struct stat *st, struct sp_err *e)
{
    static const char digits[] = "0123456789abcdef";
    if (fstat(fd, st) < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", name, strerror(err));
    }
    if (!S_ISREG(st->st_mode))
        return sp_fail(e, -EINVAL, "%s: not a regular file", name);
    SHA2_CTX c;
    SHA256Init(&c);
    static __thread uint8_t buf[1 << 20];
    off_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof(buf), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            return sp_fail(e, -err, "%s: read: %s", name, strerror(err));
        }
        if (n == 0)
            break;
        SHA256Update(&c, buf, (size_t)n);
        off += n;
    }
    uint8_t h[32];
    SHA256Final(h, &c);
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[h[i] >> 4];
        hex[2 * i + 1] = digits[h[i] & 15];
    }
    hex[64] = 0;
    if ((uint64_t)off != (uint64_t)st->st_size)
        return sp_fail(e, -EAGAIN, "%s: size changed while reading it (%lld bytes, read %lld)",
                       name, (long long)st->st_size, (long long)off);
    return 0;
}

int witness_ref_take(const char *path, struct witness_ref *r, struct sp_err *e)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs)) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    if (strlen(abs) >= sizeof(r->path))
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
    snprintf(r->path, sizeof(r->path), "%s", abs);
    int fd = open(abs, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    struct stat st;
    int rc = witness_hash_fd(fd, path, r->sha256, &st, e);
    close(fd);
    if (rc == 0)
        r->size = (uint64_t)st.st_size;
    return rc;
}
