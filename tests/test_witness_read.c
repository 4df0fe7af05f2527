/*
 * test_witness_read.c — synthd's chunked, multi-threaded witness read
 * (synthd/witness_read.h) against the values written and a single
 * wtns_read: the same bytes at every thread count, and with values not
 * below r in two chunks, the error names the first one.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "witness_read.h"
#include "wtns_write.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(witness_read, .timeout = 120);

/* nWitness spanning 3 chunks and a part of a fourth */
#define N (3 * SYNTH_READ_CHUNK + 1234)

static uint8_t *values_below_r(uint32_t n)
{
    uint8_t *v = malloc((size_t)n * 32);
    cr_assert(v);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)n * 32; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v[i] = (uint8_t)s;
    }
    for (uint32_t i = 0; i < n; i++)
        v[(size_t)i * 32 + 31] &= 0x0f; /* < 2^252 < r on both curves */
    return v;
}

static int wtns_memfd(enum curve_id curve, const uint8_t *v, uint32_t n, struct wtns *w)
{
    struct sp_err e;
    int fd = memfd_create("w.wtns", MFD_CLOEXEC);
    cr_assert(fd >= 0);
    cr_assert_eq(wtns_write(fd, "w.wtns", curve, v, n, &e), 0, "%s", e.msg);
    cr_assert_eq(wtns_open(w, fd, "w.wtns", &e), 0, "%s", e.msg);
    return fd;
}

Test(witness_read, same_bytes_as_written_at_any_thread_count)
{
    uint8_t *v = values_below_r(N), *got = malloc((size_t)N * 32), *one = malloc((size_t)N * 32);
    struct wtns w;
    struct sp_err e;
    int fd = wtns_memfd(CURVE_BLS12381, v, N, &w);
    cr_assert_eq(wtns_read(&w, fd, one, 0, N, &e), 0, "%s", e.msg);
    cr_assert(memcmp(one, v, (size_t)N * 32) == 0);
    for (unsigned th = 1; th <= 4; th++) {
        memset(got, 0xee, (size_t)N * 32);
        cr_assert_eq(synth_read_witness(&w, fd, got, th, &e), 0, "%u threads: %s", th, e.msg);
        cr_assert(memcmp(got, v, (size_t)N * 32) == 0, "%u threads: bytes differ", th);
    }
    close(fd);
    free(v);
    free(got);
    free(one);
}

Test(witness_read, first_value_not_below_r_is_named)
{
    uint8_t *v = values_below_r(N), *got = malloc((size_t)N * 32);
    uint32_t bad1 = 2 * SYNTH_READ_CHUNK + 7, bad2 = SYNTH_READ_CHUNK + 3; /* chunk 2, chunk 1 */
    memset(v + (size_t)bad1 * 32, 0xff, 32);
    memset(v + (size_t)bad2 * 32, 0xff, 32);
    struct wtns w;
    struct sp_err e, e1;
    int fd = wtns_memfd(CURVE_BN254, v, N, &w);
    int rc1 = wtns_read(&w, fd, got, 0, N, &e1); /* one read: the reference message */
    cr_assert_eq(rc1, -SP_ERANGE);
    char want[64];
    snprintf(want, sizeof(want), "witness value %u is not below r", bad2);
    cr_assert(strstr(e1.msg, want), "%s", e1.msg);
    for (unsigned th = 1; th <= 4; th++) {
        cr_assert_eq(synth_read_witness(&w, fd, got, th, &e), -SP_ERANGE, "%u threads", th);
        cr_assert_str_eq(e.msg, e1.msg, "%u threads", th);
    }
    close(fd);
    free(v);
    free(got);
}

/* The private huge-page copy (synth_read_witness_copy): made when forced
 * (min_bytes 0), 2 MiB aligned, the same bytes as the slot's at every
 * thread count, unmapped after; not made below min_bytes, nor after a
 * failed read (then unmapped at once). */
Test(witness_read, private_copy)
{
    uint8_t *v = values_below_r(N), *got = malloc((size_t)N * 32);
    struct wtns w;
    struct sp_err e;
    struct synth_wcopy c;
    const void *g;
    int fd = wtns_memfd(CURVE_BN254, v, N, &w);
    synth_wcopy_init(&c, SYNTH_WCOPY_MIN_BYTES);
    cr_assert_eq(synth_wcopy_bytes(&c, N), 0, "a small witness is not copied");
    cr_assert_eq(synth_read_witness_copy(&w, fd, got, &c, &g, 2, &e), 0, "%s", e.msg);
    cr_assert(g == got && c.p == NULL);
    if (!c.off) /* THP madvise or always: counted at the threshold, rounded to 2 MiB */
        cr_assert_eq(synth_wcopy_bytes(&c, (SYNTH_WCOPY_MIN_BYTES >> 5) + 1),
                     SYNTH_WCOPY_MIN_BYTES + (2u << 20));
    c.min_bytes = 0;
    c.off = 0;
    cr_assert_eq(synth_wcopy_bytes(&c, N), 8u << 20); /* 6.04 MiB */
    for (unsigned th = 1; th <= 4; th++) {
        memset(got, 0xee, (size_t)N * 32);
        cr_assert_eq(synth_read_witness_copy(&w, fd, got, &c, &g, th, &e), 0, "%s", e.msg);
        cr_assert(g != got && g == c.p && (uintptr_t)g % (2u << 20) == 0);
        cr_assert(memcmp(got, v, (size_t)N * 32) == 0, "%u threads: slot bytes differ", th);
        cr_assert(memcmp(g, v, (size_t)N * 32) == 0, "%u threads: copy bytes differ", th);
        synth_wcopy_done(&c);
        cr_assert_null(c.p);
    }
    close(fd);
    memset(v + (size_t)(SYNTH_READ_CHUNK + 3) * 32, 0xff, 32);
    fd = wtns_memfd(CURVE_BN254, v, N, &w);
    cr_assert_eq(synth_read_witness_copy(&w, fd, got, &c, &g, 2, &e), -SP_ERANGE);
    cr_assert_null(c.p);
    close(fd);
    free(v);
    free(got);
}
