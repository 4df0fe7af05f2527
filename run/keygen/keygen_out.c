/* keygen_out.c — see keygen_out.h. */
#include "keygen_out.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binfile_write.h"


/* Opens an unnamed temporary in dir (or a named one). */
int out_open(struct out_file *f, const char *dir, const char *name, struct sp_err *e)
{
    f->fd = -1;
    f->named = 0;
    if ((size_t)snprintf(f->path, sizeof(f->path), "%s/%s", dir, name) >= sizeof(f->path) ||
        (size_t)snprintf(f->tmp, sizeof(f->tmp), "%s/.%s.tmp.%d", dir, name, (int)getpid()) >=
            sizeof(f->tmp))
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", dir);
    f->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    if (f->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        f->fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        f->named = f->fd >= 0;
    }
    if (f->fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: cannot create files there: %s", dir, strerror(err));
    }
    return 0;
}

/* Reserves size bytes (so a full disk shows now, not halfway). */
int out_reserve(struct out_file *f, uint64_t size, struct sp_err *e)
{
    if (fallocate(f->fd, 0, 0, (off_t)size) < 0 && errno != EOPNOTSUPP) {
        int err = errno;
        return sp_fail(e, -err, "%s: reserving %" PRIu64 " bytes: %s", f->path, size,
                       strerror(err));
    }
    if (ftruncate(f->fd, (off_t)size) < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", f->path, strerror(err));
    }
    return 0;
}

int out_text(struct out_file *f, const char *text, struct sp_err *e)
{
    size_t n = strlen(text);
    int rc = file_pwrite(f->fd, f->path, text, n, 0, e);
    if (rc == 0 && ftruncate(f->fd, (off_t)n) < 0)
        rc = sp_fail(e, -errno, "%s: %s", f->path, strerror(errno));
    return rc;
}

/* Gives every file its name: all synced first, then each linked under its
 * temporary name (unnamed ones) and renamed over NAME. */
int out_commit(struct out_file *f, unsigned n, const char *dir, struct sp_err *e)
{
    for (unsigned i = 0; i < n; i++)
        if (fsync(f[i].fd) < 0)
            return sp_fail(e, -errno, "%s: %s", f[i].path, strerror(errno));
    for (unsigned i = 0; i < n; i++) {
        if (!f[i].named) {
            char proc[64];
            snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f[i].fd);
            if (linkat(AT_FDCWD, proc, AT_FDCWD, f[i].tmp, AT_SYMLINK_FOLLOW) < 0)
                return sp_fail(e, -errno, "%s: %s", f[i].path, strerror(errno));
            f[i].named = 1;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (rename(f[i].tmp, f[i].path) < 0)
            return sp_fail(e, -errno, "%s: %s", f[i].path, strerror(errno));
        f[i].named = 0;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

void out_close(struct out_file *f, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (f[i].fd >= 0)
            close(f[i].fd);
        if (f[i].named)
            unlink(f[i].tmp);
        f[i].fd = -1;
        f[i].named = 0;
    }
}
