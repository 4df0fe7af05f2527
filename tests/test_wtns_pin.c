/*
 * test_wtns_pin.c — a pinned witness: unchanged passes; a change to its
 * public signals, its size or its other bytes (mtime) is "the witness
 * changed after submit".
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wtns_pin.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(wtns_pin, .timeout = 120);

static int tmp_file(char *path, const void *p, size_t n)
{
    strcpy(path, "/tmp/slotprove-pin-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert(write(fd, p, n) == (ssize_t)n);
    return fd;
}

Test(wtns_pin, unchanged_passes)
{
    uint8_t buf[256], pub[64];
    for (int i = 0; i < 256; i++)
        buf[i] = (uint8_t)i;
    char path[64];
    int fd = tmp_file(path, buf, sizeof(buf));
    memcpy(pub, buf + 32, 64);
    struct wtns_pin p;
    struct sp_err e;
    cr_assert_eq(wtns_pin_take(&p, fd, pub, 64, "w.wtns", &e), 0);
    cr_assert_eq(wtns_pin_check(&p, fd, pub, 64, "w.wtns", &e), 0, "%s", e.msg);
    unlink(path);
    close(fd);
}

Test(wtns_pin, public_bytes_differ)
{
    uint8_t pub[64] = { 1 }, later[64] = { 2 };
    char path[64];
    int fd = tmp_file(path, pub, sizeof(pub));
    struct wtns_pin p;
    struct sp_err e;
    cr_assert_eq(wtns_pin_take(&p, fd, pub, 64, "w.wtns", &e), 0);
    cr_assert_eq(wtns_pin_check(&p, fd, later, 64, "w.wtns", &e), -SP_EMISMATCH);
    cr_assert(strstr(e.msg, "w.wtns: the witness changed after submit (its public signals"), "%s", e.msg);
    unlink(path);
    close(fd);
}

Test(wtns_pin, private_bytes_rewritten)
{
    uint8_t buf[128] = { 0 };
    char path[64];
    int fd = tmp_file(path, buf, sizeof(buf));
    struct wtns_pin p;
    struct sp_err e;
    cr_assert_eq(wtns_pin_take(&p, fd, buf + 32, 32, "w.wtns", &e), 0);
    /* rewrite a private value in place, one second later by the clock the
     * file system stamps with (futimens: not left to the tick's luck) */
    cr_assert(pwrite(fd, "\x05", 1, 100) == 1);
    struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = p.mtime_ns / 1000000000 + 1 } };
    cr_assert_eq(futimens(fd, ts), 0);
    cr_assert_eq(wtns_pin_check(&p, fd, buf + 32, 32, "w.wtns", &e), -SP_EMISMATCH);
    cr_assert(strstr(e.msg, "it was modified"), "%s", e.msg);
    /* the same size check, past the end */
    cr_assert_eq(ftruncate(fd, 64), 0);
    cr_assert_eq(wtns_pin_check(&p, fd, buf + 32, 32, "w.wtns", &e), -SP_EMISMATCH);
    cr_assert(strstr(e.msg, "its size changed"), "%s", e.msg);
    unlink(path);
    close(fd);
}
