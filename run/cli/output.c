/* output.c — see output.h. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bsd/string.h>

#define SYMLINK_MAX_HOPS 40 /* as the kernel's ELOOP limit */

/* "/dev/stdout", "/dev/stderr", "/dev/fd/N" and "/proc/self/fd/N" name a
 * descriptor this process already holds: returns N, or -1 for other paths. */
static int inherited_fd(const char *path)
{
    const char *num = NULL;
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        num = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        num = path + 14;
    if (!num || !*num)
        return -1;
    char *end;
    long fd = strtol(num, &end, 10);
    return *end || fd < 0 || fd > INT_MAX ? -1 : (int)fd;
}

/* Follows the symlinks of a path that does not exist yet (a dangling link
 * names the file to create) and writes the real directory + name into t. */
static int resolve_new(const char *path, struct output_target *t, struct sp_err *e)
{
    char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
    if (strlcpy(cur, path, sizeof(cur)) >= sizeof(cur))
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
    for (int hop = 0;; hop++) {
        struct stat st;
        if (lstat(cur, &st) < 0) {
            if (errno != ENOENT) {
                int err = errno;
                return sp_fail(e, -err, "%s: %s", path, strerror(err));
            }
            break;
        }
        if (!S_ISLNK(st.st_mode) || hop == SYMLINK_MAX_HOPS)
            return sp_fail(e, -ELOOP, "%s: %s", path, strerror(ELOOP));
        ssize_t n = readlink(cur, link, sizeof(link) - 1);
        if (n < 0) {
            int err = errno;
            return sp_fail(e, -err, "%s: %s", path, strerror(err));
        }
        link[n] = 0;
        if (link[0] == '/') {
            memcpy(cur, link, (size_t)n + 1);
        } else { /* relative to the link's own directory */
            char *slash = strrchr(cur, '/');
            size_t keep = slash ? (size_t)(slash - cur) + 1 : 0;
            if (keep + (size_t)n >= sizeof(cur))
                return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
            memcpy(cur + keep, link, (size_t)n + 1);
        }
    }
    const char *slash = strrchr(cur, '/');
    const char *base = slash ? slash + 1 : cur;
    if (!*base)
        return sp_fail(e, -EISDIR, "%s: %s", path, strerror(EISDIR));
    if (slash == cur)
        strcpy(dir, "/");
    else if (slash)
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cur), cur);
    else
        strcpy(dir, ".");
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        int err = errno;
        return sp_fail(e, -err, "%s: directory %s: %s", path, dir, strerror(err));
    }
    if ((size_t)snprintf(t->path, sizeof(t->path), "%s/%s", strcmp(real, "/") ? real : "",
                         base) >= sizeof(t->path))
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
    t->kind = OUTPUT_REPLACE;
    return 0;
}

int output_resolve(const char *path, struct output_target *t, struct sp_err *e)
{
    struct stat st;
    memset(t, 0, sizeof(*t));
    t->name = path;
    t->fd = inherited_fd(path);
    if (t->fd >= 0) {
        if (fstat(t->fd, &st) < 0)
            return sp_fail(e, -EBADF, "%s: descriptor %d is not open", path, t->fd);
        t->kind = OUTPUT_DIRECT;
    } else if (stat(path, &st) < 0) {
        if (errno != ENOENT) {
            int err = errno;
            return sp_fail(e, -err, "%s: %s", path, strerror(err));
        }
        return resolve_new(path, t, e);
    } else if (S_ISREG(st.st_mode)) {
        if (!realpath(path, t->path)) {
            int err = errno;
            return sp_fail(e, -err, "%s: %s", path, strerror(err));
        }
        t->kind = OUTPUT_REPLACE;
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        if (strlcpy(t->path, path, sizeof(t->path)) >= sizeof(t->path))
            return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
        t->kind = OUTPUT_DIRECT;
    } else if (S_ISDIR(st.st_mode)) {
        return sp_fail(e, -EISDIR, "%s: %s", path, strerror(EISDIR));
    } else {
        return sp_fail(e, -EINVAL, "%s: a block device or other special file; outputs go to "
                                   "regular files, character devices, FIFOs or sockets", path);
    }
    t->exists = 1;
    t->dev = st.st_dev;
    t->ino = st.st_ino;
    t->mode = st.st_mode;
    if (t->kind == OUTPUT_REPLACE) { /* fail before any work if it cannot be replaced */
        char dir[PATH_MAX];
        strlcpy(dir, t->path, sizeof(dir));
        char *slash = strrchr(dir, '/');
        slash[slash == dir ? 1 : 0] = 0;
        if (access(dir, W_OK | X_OK) < 0) {
            int err = errno;
            return sp_fail(e, -err, "%s: %s", path, strerror(err));
        }
    }
    return 0;
}

/* Whether two resolved outputs are one file. A character device named twice
 * (/dev/null, a terminal) takes both texts harmlessly and is allowed. */
static int same_file(const struct output_target *a, const struct output_target *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino && !S_ISCHR(a->mode);
    return !a->exists && !b->exists && strcmp(a->path, b->path) == 0;
}

int output_check(unsigned n, const char *const *paths, struct output_target *t,
                 struct sp_err *e)
{
    if (n > OUTPUT_MAX_FILES)
        return sp_fail(e, SP_EINTERNAL, "output_check: %u files", n);
    for (unsigned i = 0; i < n; i++) {
        int rc = output_resolve(paths[i], &t[i], e);
        if (rc < 0)
            return rc;
        for (unsigned j = 0; j < i; j++)
            if (same_file(&t[j], &t[i]))
                return sp_fail(e, SP_EUSAGE, "%s and %s are the same file; give two different "
                                             "files", paths[j], paths[i]);
    }
    return 0;
}

static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        text += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Opens a character device or FIFO for writing, or connects to a unix
 * stream socket; never creates or truncates anything. */
static int open_direct(const struct output_target *t)
{
    if (t->fd >= 0) {
        int fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 0);
        return fd < 0 ? -errno : fd;
    }
    if (!S_ISSOCK(t->mode)) {
        int fd = open(t->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
    }
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlcpy(sa.sun_path, t->path, sizeof(sa.sun_path)) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    return fd;
}

static int write_direct(const struct output_target *t, const char *text, size_t len,
                        struct sp_err *e)
{
    int fd = open_direct(t);
    if (fd < 0)
        return sp_fail(e, fd, "%s: %s", t->name, strerror(-fd));
    int rc = write_all(fd, text, len);
    if (close(fd) < 0 && rc == 0 && errno != EINTR)
        rc = -errno;
    return rc < 0 ? sp_fail(e, rc, "%s: %s", t->name, strerror(-rc)) : 0;
}

/* Writes text into tmp (real path + .tmp.PID, beside the real file, so the
 * rename stays on one filesystem) and syncs it; removes it on failure. */
static int write_tmp(const struct output_target *t, char *tmp, const char *text, size_t len,
                     struct sp_err *e)
{
    if ((size_t)snprintf(tmp, PATH_MAX, "%s.tmp.%d", t->path, (int)getpid()) >= PATH_MAX)
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", t->name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", t->name, strerror(err));
    }
    int rc = write_all(fd, text, len);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        unlink(tmp);
        return sp_fail(e, rc, "%s: %s", t->name, strerror(-rc));
    }
    return 0;
}

int write_outputs(unsigned n, const char *const *paths, const char *const *texts,
                  struct sp_err *e)
{
    return write_outputs_len(n, paths, texts, NULL, e);
}

int write_outputs_len(unsigned n, const char *const *paths, const char *const *texts,
                      const size_t *lens, struct sp_err *e)
{
    struct output_target t[OUTPUT_MAX_FILES];
    char tmp[OUTPUT_MAX_FILES][PATH_MAX];
    int made[OUTPUT_MAX_FILES] = { 0 };
    int rc = output_check(n, paths, t, e);

    for (unsigned i = 0; rc == 0 && i < n; i++)
        if (t[i].kind == OUTPUT_REPLACE && (rc = write_tmp(&t[i], tmp[i], texts[i], lens ? lens[i] : strlen(texts[i]), e)) == 0)
            made[i] = 1;
    for (unsigned i = 0; rc == 0 && i < n; i++)
        if (t[i].kind == OUTPUT_DIRECT)
            rc = write_direct(&t[i], texts[i], lens ? lens[i] : strlen(texts[i]), e);
    for (unsigned i = 0; i < n; i++) {
        if (!made[i])
            continue;
        if (rc == 0 && rename(tmp[i], t[i].path) < 0) {
            int err = errno;
            rc = sp_fail(e, -err, "%s: %s", paths[i], strerror(err));
        }
        if (rc < 0)
            unlink(tmp[i]); /* this one and every later one are still temporary */
    }
    return rc;
}

int write_output(const char *path, const char *text, struct sp_err *e)
{
    return write_outputs(1, &path, &text, e);
}

int output_check_args(const char *cmd, const char *proof, const char *pub)
{
    const char *paths[2] = { proof, pub };
    struct output_target t[2];
    struct sp_err e = { "" };
    int rc = output_check(2, paths, t, &e);
    if (rc == 0)
        return 0;
    if (rc == -SP_EUSAGE)
        fprintf(stderr, "slotprove %s: %s\n", cmd, e.msg);
    else
        fprintf(stderr, "slotprove: %s\n", e.msg);
    return rc == -SP_EUSAGE ? 2 : 1;
}
