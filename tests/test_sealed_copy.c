/*
 * test_sealed_copy.c — sealed_copy.h: a file of exactly the limit is copied
 * (the same bytes, the memfd sealed: F_GET_SEALS, and a write, a truncation
 * and a growth refused), one byte more is refused with the caller's code
 * and words, an empty file is refused, and so are a directory, a FIFO and a
 * symbolic link, each named in the message. A /proc file (fstat: 0 bytes,
 * reads: more) stands for a file growing while it is copied.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed_copy.h"

TestSuite(sealed_copy, .timeout = 60);

#define LIMIT 100000u /* bytes: more than one sendfile page, not a multiple of 4096 */

static const struct sealed_copy_kind kind = {
    .what = "a test file", .max_bytes = LIMIT, .too_big = -SP_ERANGE,
    .limit = "--test-limit", .advice = "; try a smaller one",
};

/* A temporary directory for one test, removed with its files by rm -r. */
static char dir[64];

static void mkdir_tmp(void)
{
    strcpy(dir, "/tmp/slotprove-sealed-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Writes n bytes of a pattern (byte i = (i * 7 + i / 251) & 255) to DIR/name,
 * into buf when non-NULL; the descriptor is left open for reading, its
 * offset at the end (the copy must not depend on it). */
static int pattern_file(const char *name, size_t n, unsigned char *buf)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
    unsigned char *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 7 + i / 251) & 255);
    cr_assert_eq(write(fd, p, n), (ssize_t)n);
    if (buf)
        memcpy(buf, p, n);
    free(p);
    return fd;
}

Test(sealed_copy, exactly_the_limit_is_copied_and_sealed, .init = mkdir_tmp, .fini = rm_tmp)
{
    static unsigned char want[LIMIT], got[LIMIT + 1];
    struct sp_err e = { "" };
    int fd = pattern_file("at_limit", LIMIT, want);
    int m = sealed_copy(fd, "at_limit", &kind, &e);
    cr_assert_geq(m, 0, "%s", e.msg);
    cr_assert_eq(lseek(fd, 0, SEEK_CUR), (off_t)LIMIT, "fd's own offset is left alone");
    close(fd);

    struct stat st;
    cr_assert_eq(fstat(m, &st), 0);
    cr_assert_eq(st.st_size, (off_t)LIMIT);
    cr_assert_eq(pread(m, got, sizeof(got), 0), (ssize_t)LIMIT);
    cr_assert_eq(memcmp(got, want, LIMIT), 0, "the copy holds the file's bytes");
    cr_assert(fcntl(m, F_GETFD) & FD_CLOEXEC);

    int seals = fcntl(m, F_GET_SEALS);
    int all = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
    cr_assert_eq(seals & all, all, "seals 0x%x", seals);
    /* and they hold: no write, no truncation, no growth, no unsealing */
    cr_assert_eq(pwrite(m, "x", 1, 0), -1);
    cr_assert_eq(errno, EPERM);
    cr_assert_eq(ftruncate(m, 1), -1);
    cr_assert_eq(ftruncate(m, LIMIT + 4096), -1);
    cr_assert_eq(fcntl(m, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), -1);
    cr_assert_eq(fstat(m, &st), 0);
    cr_assert_eq(st.st_size, (off_t)LIMIT);
    close(m);
}

Test(sealed_copy, one_byte_past_the_limit_is_refused, .init = mkdir_tmp, .fini = rm_tmp)
{
    struct sp_err e = { "" };
    int fd = pattern_file("past_limit", LIMIT + 1, NULL);
    cr_assert_eq(sealed_copy(fd, "past_limit", &kind, &e), -SP_ERANGE);
    cr_assert_str_eq(e.msg, "past_limit: 100001 bytes is above --test-limit (100000 bytes); "
                     "try a smaller one");
    /* another caller's code and words */
    const struct sealed_copy_kind k2 = {
        .what = "a client key", .max_bytes = LIMIT, .too_big = -EFBIG,
        .limit = "--max-job-key", .advice = "",
    };
    cr_assert_eq(sealed_copy(fd, "k.zkey", &k2, &e), -EFBIG);
    cr_assert_str_eq(e.msg, "k.zkey: 100001 bytes is above --max-job-key (100000 bytes)");
    close(fd);
}

Test(sealed_copy, an_empty_file_is_refused, .init = mkdir_tmp, .fini = rm_tmp)
{
    struct sp_err e = { "" };
    int fd = pattern_file("empty", 0, NULL);
    cr_assert_eq(sealed_copy(fd, "empty", &kind, &e), -SP_EFORMAT);
    cr_assert_str_eq(e.msg, "empty: empty file, not a test file");
    close(fd);
}

Test(sealed_copy, not_regular_files_are_refused, .init = mkdir_tmp, .fini = rm_tmp)
{
    char path[128], target[128];
    struct sp_err e = { "" };

    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cr_assert(d >= 0);
    cr_assert_eq(sealed_copy(d, "dir", &kind, &e), -EINVAL);
    cr_assert_str_eq(e.msg, "dir: not a regular file (a directory)");
    close(d);

    snprintf(path, sizeof(path), "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* no writer needed */
    cr_assert(f >= 0, "%s", strerror(errno));
    cr_assert_eq(sealed_copy(f, "fifo", &kind, &e), -EINVAL);
    cr_assert_str_eq(e.msg, "fifo: not a regular file (a FIFO)");
    close(f);

    /* a link to a good file: the link itself (O_PATH | O_NOFOLLOW) is refused,
     * the file it names (opened through it) is copied */
    close(pattern_file("target", 10, NULL));
    snprintf(target, sizeof(target), "%s/target", dir);
    snprintf(path, sizeof(path), "%s/link", dir);
    cr_assert_eq(symlink(target, path), 0);
    int l = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    cr_assert(l >= 0, "%s", strerror(errno));
    cr_assert_eq(sealed_copy(l, "link", &kind, &e), -EINVAL);
    cr_assert_str_eq(e.msg, "link: not a regular file (a symbolic link)");
    close(l);
    l = open(path, O_RDONLY | O_CLOEXEC);
    int m = sealed_copy(l, "link", &kind, &e);
    cr_assert_geq(m, 0, "%s", e.msg);
    cr_assert_eq(lseek(m, 0, SEEK_END), 10);
    close(m);
    close(l);
}

/* /proc/self/status: fstat says 0 bytes, reads give a few hundred. Copied
 * to its end under a large limit; past a 16-byte limit, "grew past". */
Test(sealed_copy, a_file_longer_than_fstat_said)
{
    struct sp_err e = { "" };
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    cr_assert(fd >= 0);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    cr_assert_eq(st.st_size, 0, "the test needs a file fstat calls empty");
    int m = sealed_copy(fd, "status", &kind, &e);
    cr_assert_geq(m, 0, "%s", e.msg);
    char head[6] = "";
    cr_assert_eq(pread(m, head, 5, 0), 5);
    cr_assert_str_eq(head, "Name:");
    cr_assert_gt(lseek(m, 0, SEEK_END), 16);
    close(m);

    struct sealed_copy_kind small = kind;
    small.max_bytes = 16;
    cr_assert_eq(sealed_copy(fd, "status", &small, &e), -SP_ERANGE);
    cr_assert_str_eq(e.msg, "status: grew past --test-limit (16 bytes) while being copied");
    close(fd);
}
