/*
 * test_zkey_check.c - zkey_check_points (common/zkey_check.h): every
 * fixture key passes; a key with one point moved off its curve (one byte of
 * its y changed) is refused naming the section and index of the first bad
 * point, for points in the header, IC, A, B2 (the twist) and the last H
 * point, on both curves; a coordinate >= q is named as such; an earlier
 * bad point wins over a later one whatever the thread count.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zkey.h"
#include "zkey_check.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(zkey_check, .timeout = 120);

#define FIX "tests/fixtures/"

/* The fixture's bytes in a memfd, for zkey_open. */
static int fixture_fd(const char *path, uint8_t **copy, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    *copy = malloc(*len);
    cr_assert(fread(*copy, 1, *len, f) == *len);
    fclose(f);
    return 0;
}

static int memfd_of(const uint8_t *p, size_t len)
{
    int fd = memfd_create("zk", 0);
    cr_assert(fd >= 0);
    cr_assert(write(fd, p, len) == (ssize_t)len);
    return fd;
}

/* Offset of a pointer into zk's map. */
static size_t off(const struct zkey *zk, const uint8_t *p)
{
    return (size_t)(p - zk->map);
}

/* Opens `path` with byte (off1 or none) xored and checks the message. */
static void expect_bad(const char *path, size_t at, uint8_t x, size_t at2, const char *want,
                       unsigned threads)
{
    uint8_t *b;
    size_t len;
    fixture_fd(path, &b, &len);
    b[at] ^= x;
    if (at2)
        b[at2] ^= x;
    int fd = memfd_of(b, len);
    struct zkey zk;
    struct sp_err e = { "" };
    cr_assert_eq(zkey_open(&zk, fd, "bad.zkey", &e), 0, "%s", e.msg);
    int rc = zkey_check_points(&zk, threads, NULL, &e);
    cr_assert_eq(rc, -SP_ERANGE, "%s: corrupt byte at %zu not found", path, at);
    cr_assert(strstr(e.msg, want), "got \"%s\", want \"%s\"", e.msg, want);
    cr_assert(strncmp(e.msg, "bad.zkey: ", 10) == 0, "%s", e.msg);
    zkey_close(&zk);
    close(fd);
    free(b);
}

static void check_curve(const char *path, const char *label)
{
    uint8_t *b;
    size_t len;
    fixture_fd(path, &b, &len);
    int fd = memfd_of(b, len);
    struct zkey zk;
    struct sp_err e = { "" };
    uint64_t n = 0;
    cr_assert_eq(zkey_open(&zk, fd, path, &e), 0, "%s", e.msg);
    cr_assert_eq(zkey_check_points(&zk, 2, &n, &e), 0, "%s: %s", label, e.msg);
    uint64_t want = 6 + zk.n_public + 1 + 3ull * zk.n_vars +
                    (zk.n_vars - zk.n_public - 1) + zk.domain_size;
    cr_assert_eq(n, want, "%s: points counted", label);
    size_t g1 = zk.ci->g1_bytes, g2 = zk.ci->g2_bytes, q = zk.ci->n8q;
    /* byte 0 of y (after x): a small change keeps y < q but off the curve */
    size_t a3 = off(&zk, zk.a) + 3 * g1 + q, b21 = off(&zk, zk.b2) + g2 + 2 * q;
    size_t hl = off(&zk, zk.h) + (zk.domain_size - 1) * g1 + q;
    size_t ic1 = off(&zk, zk.ic) + g1 + q, d2 = off(&zk, zk.delta2) + 2 * q;
    size_t h0 = off(&zk, zk.h) + 100 * g1 + q, ax = off(&zk, zk.a) + q - 1;
    char last[64];
    snprintf(last, sizeof(last), "section 9 (H) point %u: not on the curve",
             zk.domain_size - 1);
    zkey_close(&zk);
    close(fd);
    expect_bad(path, a3, 1, 0, "section 5 (A) point 3: not on the curve", 0);
    expect_bad(path, b21, 1, 0, "section 7 (B2) point 1: not on the curve", 0);
    expect_bad(path, hl, 1, 0, last, 2);
    expect_bad(path, ic1, 1, 0, "section 3 (IC) point 1: not on the curve", 1);
    expect_bad(path, d2, 1, 0, "section 2 (Groth16 header: delta2) point 5", 0);
    /* two bad points in H: the first one is named, with 1 or 2 threads */
    expect_bad(path, h0, 1, hl, "section 9 (H) point 100:", 1);
    expect_bad(path, h0, 1, hl, "section 9 (H) point 100:", 2);
    /* the top byte of A[0].x set to 0xff: x >= q */
    expect_bad(path, ax, 0xff, 0, "section 5 (A) point 0: coordinate not below q", 0);
    free(b);
}

Test(zkey_check, fixtures_bn128)
{
    check_curve(FIX "bn128/chain.zkey", "bn128");
}

Test(zkey_check, fixtures_bls12381)
{
    check_curve(FIX "bls12381/chain.zkey", "bls12381");
}
