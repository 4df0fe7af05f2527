/*
 * stuck_fuse.c — a FUSE filesystem (libfuse3) serving one file whose first
 * bytes read and whose later reads hang: a hung FUSE or NFS file whose
 * first small reads succeed (issue 22). Test tool, built by tests/lockouts.sh.
 *
 *   stuck_fuse MOUNTPOINT SOURCE SERVE_BYTES RELEASE_FILE [allow_other]
 *
 * allow_other (root only): other uids may open the file too (faults s22).
 *
 * MOUNTPOINT/NAME (NAME: SOURCE's base name) has SOURCE's size and bytes.
 * A read that ends within [0, SERVE_BYTES) is answered at once; a read
 * that reaches past SERVE_BYTES is held, unanswered, until RELEASE_FILE
 * exists, then answered. Every held read is logged on stderr
 * ("stuck_fuse: holding a read of N bytes at offset O").
 *
 * The file is opened with direct_io, so every read goes to this daemon as
 * a FUSE_READ request with no page cache between. While the request is
 * unanswered the reader sleeps in the kernel's fuse request_wait_answer():
 * interruptibly at first (state S); once a fatal signal arrives for a
 * request the daemon has already read, the kernel waits it out
 * uninterruptibly (state D): a SIGKILLed reader does not die until this
 * daemon answers or the connection is aborted. That is what a hung NFS
 * (hard mount) or FUSE file does to its reader.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

static const char *source, *release_file;
static char name[256];
static off_t serve_bytes;

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    memset(st, 0, sizeof(*st));
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (path[0] != '/' || strcmp(path + 1, name) != 0)
        return -ENOENT;
    struct stat s;
    if (stat(source, &s) < 0)
        return -errno;
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = s.st_size;
    return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off, (void)fi, (void)flags;
    if (strcmp(path, "/") != 0)
        return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, name, NULL, 0, 0);
    return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
    if (path[0] != '/' || strcmp(path + 1, name) != 0)
        return -ENOENT;
    if ((fi->flags & O_ACCMODE) != O_RDONLY)
        return -EACCES;
    fi->direct_io = 1;
    return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
    (void)path, (void)fi;
    if (off + (off_t)size > serve_bytes) {
        fprintf(stderr, "stuck_fuse: holding a read of %zu bytes at offset %lld\n", size,
                (long long)off);
        while (access(release_file, F_OK) != 0)
            usleep(100000);
    }
    int fd = open(source, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = pread(fd, buf, size, off);
    int err = errno;
    close(fd);
    return n < 0 ? -err : (int)n;
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr,
    .readdir = fs_readdir,
    .open = fs_open,
    .read = fs_read,
};

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: stuck_fuse MOUNTPOINT SOURCE SERVE_BYTES RELEASE_FILE [allow_other]\n");
        return 2;
    }
    static char abs_source[4096];
    if (!realpath(argv[2], abs_source)) { /* libfuse changes to / */
        perror(argv[2]);
        return 2;
    }
    source = abs_source;
    serve_bytes = strtoll(argv[3], NULL, 10);
    release_file = argv[4];
    const char *base = strrchr(source, '/');
    snprintf(name, sizeof(name), "%.200s", base ? base + 1 : source);
    /* foreground, multi-threaded: a held read does not block the others */
    char *fargv[] = { argv[0], "-f", "-o",
                      argc > 5 && strcmp(argv[5], "allow_other") == 0
                          ? "ro,fsname=stuck_fuse,allow_other" : "ro,fsname=stuck_fuse",
                      argv[1], NULL };
    return fuse_main(5, fargv, &ops, NULL);
}
