/*
 * test_msm.c - multi-scalar multiplication (common/msm.h, common/msm_tmpl.h)
 * for bn254 G1/G2 and bls12381 G1/G2, one suite per group:
 *
 *   random_sizes   MSM vs naive Σ k_i·P_i (_mul_scalar + _add) at
 *                  n = 0, 1, 2, 3, 17, 100, 1000, random points (random
 *                  multiples of the generator) and random scalars < r, with
 *                  nthreads 0 (= all CPUs), 1, 2, 3, 16, 64
 *   zero_scalars   all-zero scalars give infinity
 *   inf_points     all-zero (infinity) affine points are skipped; all-infinity
 *                  input gives infinity
 *   big_scalars    scalars r-1, 2^(bits(r)-1), random with the top bit set, 1;
 *                  (r-1)·P = -P and (r-1)·P + 1·P = infinity
 *   dup_points     one point repeated (bucket doublings) and P, -P pairs with
 *                  equal scalars (bucket cancellations)
 *   unaligned      points and scalars at odd addresses
 *   one_bucket     N = 1500 distinct points (with repeats P, P and pairs
 *                  P, −P) all with scalar 5, then all with r − 5: every
 *                  point lands in one bucket (batch, queue and Jacobian
 *                  overflow), vs ±5·Σ P_i, 1 and 2 threads
 *   bucket_sums    window 0's buckets holding ±P, ±2P, P twice or
 *                  nothing (doublings and cancellations inside the
 *                  batch-affine bucket sums) amid 4000 cancelling filler
 *                  pairs (windows of 10+ bits), vs naive, 1 and 2 threads
 *   witness        witness-shaped scalars (40% 0, 40% 1, small, full, and
 *                  the runs of 2^(c−1) digits that chain the signed-digit
 *                  borrow for every window size c) on points with repeats,
 *                  negations and infinities, vs naive, 1/2/16 threads
 *   large_2_16     P_i = (i+1)·G by repeated addition, random k_i; expected
 *                  (Σ k_i·(i+1) mod r)·G from Fr arithmetic and one
 *                  _mul_scalar, n = 2^16; n = 2^20 for bn254_g1
 *                  (msm_bn254_g1::large_2_20, timed)
 *
 * Results are compared with _eq (projective). The per-group helpers live in
 * the second half of this file, which includes itself once per group (like
 * the common/ *_tmpl.h headers); every helper is static. Randomness:
 * fixed-seed xorshift64*.
 */
#ifndef MT_G /* ====================== first pass: common part and tests */

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msm.h"
#include "parallel.h"

#define MT_CAT2(a, b) a##b
#define MT_CAT(a, b) MT_CAT2(a, b)

/* ---------------------------------------------------------------- PRNG */

static uint64_t mt_rng_state;

static void mt_seed(uint64_t s)
{
    mt_rng_state = s ? s : 0x9e3779b97f4a7c15ULL;
}

static uint64_t mt_rand64(void)
{
    uint64_t x = mt_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    mt_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------------- helpers */

static void mt_bytes_to_limbs(uint64_t l[4], const uint8_t b[32])
{
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | b[8 * i + k];
        l[i] = w;
    }
}

static void mt_limbs_to_bytes(uint8_t b[32], const uint64_t l[4])
{
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++)
            b[8 * i + k] = (uint8_t)(l[i] >> (8 * k));
}

/* Hex of len raw bytes, most significant (last) byte first. */
static void mt_hex(char *buf, size_t cap, const void *p, size_t len)
{
    const uint8_t *b = p;
    size_t o = 0;
    for (size_t i = len; i-- > 0 && o + 3 < cap;)
        o += (size_t)snprintf(buf + o, cap - o, "%02x", b[i]);
}

static void *mt_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    cr_assert(p != NULL, "out of memory (%zu bytes)", bytes);
    return p;
}

/* Seconds on clock (CLOCK_MONOTONIC: wall, CLOCK_PROCESS_CPUTIME_ID: CPU). */
static double mt_clock(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------- per-group instances */

#define MT_G bn254_g1
#define MT_GF bn254_fp
#define MT_FR bn254_fr
#define MT_NAME "bn254_g1"
#include "test_msm.c"
#undef MT_G
#undef MT_GF
#undef MT_FR
#undef MT_NAME

#define MT_G bn254_g2
#define MT_GF bn254_fp2
#define MT_FR bn254_fr
#define MT_NAME "bn254_g2"
#include "test_msm.c"
#undef MT_G
#undef MT_GF
#undef MT_FR
#undef MT_NAME

#define MT_G bls12381_g1
#define MT_GF bls12381_fp
#define MT_FR bls12381_fr
#define MT_NAME "bls12381_g1"
#include "test_msm.c"
#undef MT_G
#undef MT_GF
#undef MT_FR
#undef MT_NAME

#define MT_G bls12381_g2
#define MT_GF bls12381_fp2
#define MT_FR bls12381_fr
#define MT_NAME "bls12381_g2"
#include "test_msm.c"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(msm_bn254_g1, .timeout = 600);
TestSuite(msm_bn254_g2, .timeout = 600);
TestSuite(msm_bls12381_g1, .timeout = 600);
TestSuite(msm_bls12381_g2, .timeout = 600);
#undef MT_G
#undef MT_GF
#undef MT_FR
#undef MT_NAME

/* --------------------------------------------------------------- tests */

#define MT_TESTS(G, SEED)                                                      \
    Test(msm_##G, random_sizes, .timeout = 60)                                 \
    {                                                                          \
        mt_seed(SEED + 1);                                                     \
        mt_##G##_check_random_sizes();                                         \
    }                                                                          \
    Test(msm_##G, zero_scalars, .timeout = 30)                                 \
    {                                                                          \
        mt_seed(SEED + 2);                                                     \
        mt_##G##_check_zero_scalars();                                         \
    }                                                                          \
    Test(msm_##G, inf_points, .timeout = 30)                                   \
    {                                                                          \
        mt_seed(SEED + 3);                                                     \
        mt_##G##_check_inf_points();                                           \
    }                                                                          \
    Test(msm_##G, big_scalars, .timeout = 30)                                  \
    {                                                                          \
        mt_seed(SEED + 4);                                                     \
        mt_##G##_check_big_scalars();                                          \
    }                                                                          \
    Test(msm_##G, dup_points, .timeout = 30)                                   \
    {                                                                          \
        mt_seed(SEED + 5);                                                     \
        mt_##G##_check_dup_points();                                           \
    }                                                                          \
    Test(msm_##G, unaligned, .timeout = 30)                                    \
    {                                                                          \
        mt_seed(SEED + 6);                                                     \
        mt_##G##_check_unaligned();                                            \
    }                                                                          \
    Test(msm_##G, one_bucket, .timeout = 60)                                   \
    {                                                                          \
        mt_seed(SEED + 9);                                                     \
        mt_##G##_check_one_bucket();                                           \
    }                                                                          \
    Test(msm_##G, bucket_sums, .timeout = 60)                                  \
    {                                                                          \
        mt_seed(SEED + 10);                                                    \
        mt_##G##_check_bucket_sums();                                          \
    }                                                                          \
    Test(msm_##G, witness, .timeout = 60)                                      \
    {                                                                          \
        mt_seed(SEED + 8);                                                     \
        mt_##G##_check_witness();                                              \
    }                                                                          \
    Test(msm_##G, large_2_16, .timeout = 60)                                   \
    {                                                                          \
        mt_seed(SEED + 7);                                                     \
        mt_##G##_check_large((size_t)1 << 16);                                 \
    }

MT_TESTS(bn254_g1, 0x100)
MT_TESTS(bn254_g2, 0x200)
MT_TESTS(bls12381_g1, 0x300)
MT_TESTS(bls12381_g2, 0x400)

/* Must stay within ~20 s on 2 cores; the timing goes to the info log. */
Test(msm_bn254_g1, large_2_20, .timeout = 120)
{
    mt_seed(0x108);
    mt_bn254_g1_check_large((size_t)1 << 20);
}

#else /* ============================= per-group part (MT_G = group prefix) */

#define JAC_T MT_CAT(MT_G, _jac_t)
#define AFF_T MT_CAT(MT_G, _affine_t)
#define GF_T MT_CAT(MT_GF, _t)
#define FR_T MT_CAT(MT_FR, _t)
#define G_(name) MT_CAT(MT_G, _##name)
#define FR_(name) MT_CAT(MT_FR, _##name)
#define H(name) MT_CAT(mt_, MT_CAT(MT_G, _##name))

/* Random scalar < r as 32 little-endian bytes (standard form): 256 random
 * bits masked to the bit length of r, rejected if >= r. With top != 0 the
 * top bit (bit bits(r)-1) is forced on. */
static void H(rand_scalar)(uint8_t out[32], int top)
{
    const uint64_t hi = FR_(modulus).l[3];
    unsigned topbit = 63 - (unsigned)__builtin_clzll(hi);
    uint64_t mask = ~0ULL >> (63 - topbit), l[4];
    do {
        for (int i = 0; i < 4; i++)
            l[i] = mt_rand64();
        l[3] &= mask;
        if (top)
            l[3] |= 1ULL << topbit;
    } while (!FR_(is_canonical)(l));
    mt_limbs_to_bytes(out, l);
}

/* r - 1 as 32 little-endian bytes. */
static void H(r_minus_1)(uint8_t out[32])
{
    uint64_t l[4];
    memcpy(l, FR_(modulus).l, sizeof l);
    l[0] -= 1; /* r is odd */
    mt_limbs_to_bytes(out, l);
}

/* ret = the scalar k (32 little-endian bytes, < r) in Fr, Montgomery form. */
static void H(scalar_fr)(FR_T *ret, const uint8_t k[32])
{
    mt_bytes_to_limbs(ret->l, k);
    cr_assert(FR_(is_canonical)(ret->l), "%s: test scalar >= r", MT_NAME);
    FR_(to_mont)(ret, ret);
}

static void H(gen)(JAC_T *g)
{
    G_(from_affine)(g, &G_(generator));
}

/* ret = k·p, k 32 little-endian bytes. */
static void H(mul_bytes)(JAC_T *ret, const JAC_T *p, const uint8_t k[32])
{
    uint64_t l[4];
    mt_bytes_to_limbs(l, k);
    G_(mul_scalar)(ret, p, l, 4);
}

static void H(to_affine_vec)(AFF_T *aff, const JAC_T *jac, size_t n)
{
    GF_T *scratch = mt_alloc(n * sizeof(GF_T));
    G_(batch_to_affine)(aff, jac, n, scratch);
    free(scratch);
}

/* n random points k·G (random k < r), affine. */
static AFF_T *H(rand_points)(size_t n)
{
    AFF_T *pts = mt_alloc(n * sizeof(AFF_T));
    JAC_T *jac = mt_alloc(n * sizeof(JAC_T)), g;
    uint8_t k[32];
    H(gen)(&g);
    for (size_t i = 0; i < n; i++) {
        H(rand_scalar)(k, 0);
        H(mul_bytes)(&jac[i], &g, k);
    }
    H(to_affine_vec)(pts, jac, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(G_(affine_is_on_curve)(&pts[i]), "%s: random point %zu "
                  "not on the curve", MT_NAME, i);
    free(jac);
    return pts;
}

static uint8_t *H(rand_scalars)(size_t n)
{
    uint8_t *sc = mt_alloc(32 * n);
    for (size_t i = 0; i < n; i++)
        H(rand_scalar)(sc + 32 * i, 0);
    return sc;
}

/* ret = Σ k_i·P_i by _mul_scalar and _add, skipping infinity points. */
static void H(naive)(JAC_T *ret, const AFF_T *pts, const uint8_t *sc, size_t n)
{
    G_(set_inf)(ret);
    for (size_t i = 0; i < n; i++) {
        if (G_(affine_is_inf)(&pts[i]))
            continue;
        JAC_T p, t;
        G_(from_affine)(&p, &pts[i]);
        H(mul_bytes)(&t, &p, sc + 32 * i);
        G_(add)(ret, ret, &t);
    }
}

static void H(describe)(char *buf, size_t cap, const JAC_T *p)
{
    if (G_(is_inf)(p)) {
        snprintf(buf, cap, "infinity");
        return;
    }
    AFF_T a;
    char hx[512];
    G_(to_affine)(&a, p);
    mt_hex(hx, sizeof hx, &a.x, sizeof a.x);
    snprintf(buf, cap, "x (raw Montgomery) = %s", hx);
}

static void H(expect)(const char *what, size_t n, unsigned nthreads,
                      const JAC_T *got, const JAC_T *exp)
{
    if (G_(eq)(got, exp))
        return;
    char g[600], e[600];
    H(describe)(g, sizeof g, got);
    H(describe)(e, sizeof e, exp);
    cr_assert_fail("%s MSM %s, n = %zu, nthreads = %u:\n  got      %s\n"
                   "  expected %s", MT_NAME, what, n, nthreads, g, e);
}

/* ret = MSM; asserts it returns 0. ret starts as a non-infinity value so
 * that a result left unwritten is noticed. */
static void H(run)(JAC_T *ret, const void *pts, const void *sc, size_t n,
                   unsigned nthreads)
{
    H(gen)(ret);
    int rc = G_(msm)(ret, pts, sc, n, nthreads);
    cr_assert(rc == 0, "%s MSM n = %zu, nthreads = %u returned %d", MT_NAME, n,
              nthreads, rc);
}

static void H(run_expect)(const char *what, const AFF_T *pts, const uint8_t *sc,
                          size_t n, unsigned nthreads, const JAC_T *exp)
{
    JAC_T got;
    H(run)(&got, pts, sc, n, nthreads);
    H(expect)(what, n, nthreads, &got, exp);
}

/* ---------------------------------------------------------- the checks */

static void H(check_random_sizes)(void)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 100, 1000 };
    /* 16 and 64 threads make the point range split into several chunks
     * per window (nchunks > 1 needs 2·nthreads > number of windows). */
    static const unsigned threads[] = { 0, 1, 2, 3, 16, 64 };
    const size_t N = 1000;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = H(rand_scalars)(N);
    /* prefix[m] = Σ_{i<m} k_i·P_i, naive */
    JAC_T *prefix = mt_alloc((N + 1) * sizeof(JAC_T));
    G_(set_inf)(&prefix[0]);
    for (size_t i = 0; i < N; i++) {
        JAC_T t;
        H(naive)(&t, &pts[i], sc + 32 * i, 1);
        G_(add)(&prefix[i + 1], &prefix[i], &t);
    }
    cr_assert(G_(is_inf)(&prefix[0]));
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
            H(run_expect)("random points/scalars vs naive", pts, sc, sizes[si],
                          threads[ti], &prefix[sizes[si]]);
    free(prefix);
    free(pts);
    free(sc);
}

/* Every point into one bucket: N distinct points P_i = P_0 + i·Q (plus
 * repeats P, P and pairs P, −P) all with the scalar 5, so window 0's bucket
 * 5 takes every point: its batch slot is busy at once, later points wait in
 * the queue and then go to the Jacobian overflow (with repeated and
 * opposite points among them). A second run gives every point the scalar
 * r − 5 (with GLV, parts −5 and 0; without, signed digits that put every
 * point into one bucket per window again). Expected: 5·Σ P_i and
 * (r − 5)·Σ P_i from _add and _mul_scalar; 1 and 2 threads. */
static void H(check_one_bucket)(void)
{
    const size_t N = 1500;
    AFF_T *two = H(rand_points)(2);
    AFF_T *pts = mt_alloc(N * sizeof(AFF_T));
    JAC_T *jac = mt_alloc(N * sizeof(JAC_T)), q, sum, exp, neg;
    uint64_t rm5[4];
    uint8_t *sc = mt_alloc(32 * N);
    G_(from_affine)(&jac[0], &two[0]);
    G_(from_affine)(&q, &two[1]);
    for (size_t i = 1; i < N; i++)
        G_(add)(&jac[i], &jac[i - 1], &q);
    H(to_affine_vec)(pts, jac, N);
    for (size_t i = 10; i + 1 < N; i += 37)
        pts[i + 1] = pts[i];                  /* P, P: a doubling */
    for (size_t i = 20; i + 1 < N; i += 53)
        G_(affine_neg)(&pts[i + 1], &pts[i]); /* P, −P: a cancellation */
    G_(set_inf)(&sum);
    for (size_t i = 0; i < N; i++) {
        JAC_T t;
        G_(from_affine)(&t, &pts[i]);
        G_(add)(&sum, &sum, &t);
    }
    const uint64_t five[4] = { 5, 0, 0, 0 };
    G_(mul_scalar)(&exp, &sum, five, 4);
    memset(sc, 0, 32 * N);
    for (size_t i = 0; i < N; i++)
        sc[32 * i] = 5;
    for (unsigned th = 1; th <= 2; th++)
        H(run_expect)("one bucket (scalar 5)", pts, sc, N, th, &exp);
    memcpy(rm5, FR_(modulus).l, sizeof rm5);
    rm5[0] -= 5; /* r's low limb is above 5 */
    for (size_t i = 0; i < N; i++)
        mt_limbs_to_bytes(sc + 32 * i, rm5);
    G_(mul_scalar)(&neg, &sum, rm5, 4);
    for (unsigned th = 1; th <= 2; th++)
        H(run_expect)("one bucket (scalar r - 5)", pts, sc, N, th, &neg);
    free(two);
    free(pts);
    free(jac);
    free(sc);
}

/* The batch-affine bucket sums (msm_tmpl.h buckets_sum_batched, used from
 * 256 buckets on): window 0's buckets 2..255 hold nothing, P, −P, 2P, −2P
 * or P twice (random), so the segments' running sums keep meeting equal
 * and opposite points (doublings and cancellations in both the run and
 * the acc additions, runs that return to infinity, empty buckets). 4000
 * filler pairs Q_i, −Q_i with one random full scalar each make the count
 * large enough for windows of 10+ bits and cancel in every bucket of every
 * window. Expected: the naive sum over the small-scalar points alone;
 * 1 and 2 threads. */
static void H(check_bucket_sums)(void)
{
    const size_t F = 4000, NS = 2 * 254, N = NS + 2 * F;
    AFF_T *two = H(rand_points)(2), mult[4];
    AFF_T *pts = mt_alloc(N * sizeof(AFF_T));
    JAC_T *jac = mt_alloc(F * sizeof(JAC_T)), q, exp;
    uint8_t *sc = mt_alloc(32 * N);
    memset(sc, 0, 32 * N);
    mult[0] = two[0];                            /* P, −P, 2P, −2P */
    G_(from_affine)(&q, &two[0]);
    G_(dbl)(&q, &q);
    G_(to_affine)(&mult[2], &q);
    G_(affine_neg)(&mult[1], &mult[0]);
    G_(affine_neg)(&mult[3], &mult[2]);
    size_t n = 0;
    for (unsigned d = 2; d < 256; d++) {
        unsigned pick = (unsigned)(mt_rand64() % 6); /* 0: empty, 5: P twice */
        for (unsigned t = 0; t < (pick == 5 ? 2u : pick ? 1u : 0u); t++) {
            pts[n] = mult[pick == 5 ? 0 : pick - 1];
            sc[32 * n++] = (uint8_t)d;
        }
    }
    size_t ns = n;
    H(naive)(&exp, pts, sc, ns);
    G_(from_affine)(&jac[0], &two[1]);           /* filler Q_i = Q_0 + i·P */
    G_(from_affine)(&q, &two[0]);
    for (size_t i = 1; i < F; i++)
        G_(add)(&jac[i], &jac[i - 1], &q);
    H(to_affine_vec)(pts + n, jac, F);
    for (size_t i = 0; i < F; i++) {
        G_(affine_neg)(&pts[n + F + i], &pts[n + i]);
        H(rand_scalar)(sc + 32 * (n + i), 0);
        memcpy(sc + 32 * (n + F + i), sc + 32 * (n + i), 32);
    }
    n += 2 * F;
    cr_assert(n <= N);
    for (unsigned th = 1; th <= 2; th++)
        H(run_expect)("bucket sums", pts, sc, n, th, &exp);
    free(two);
    free(pts);
    free(jac);
    free(sc);
}

static void H(check_witness)(void)
{
    static const unsigned threads[] = { 1, 2, 16 };
    const size_t N = 3000;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = mt_alloc(32 * N);
    memset(sc, 0, 32 * N);
    for (size_t i = 0; i < N; i++) {
        uint64_t u = mt_rand64() % 10, l[4] = { 0, 0, 0, 0 };
        if (i % 7 == 3)
            pts[i] = pts[i - 1];                      /* repeats */
        else if (i % 11 == 5)
            G_(affine_neg)(&pts[i], &pts[i - 1]);     /* P, −P */
        else if (i % 13 == 6)
            G_(affine_set_inf)(&pts[i]);              /* infinity */
        if (i < 2 * 19) {
            /* digits 2^(c−1) in every window of c bits (c = 2 + i/2),
             * truncated below r, then +1 on odd i */
            unsigned c = 2 + (unsigned)(i / 2);
            for (unsigned b = c - 1; b < 250; b += c)
                l[b / 64] |= 1ULL << (b % 64);
            l[0] += i & 1;
            mt_limbs_to_bytes(sc + 32 * i, l);
            continue;
        }
        if (u < 4)
            continue;
        if (u < 8)
            sc[32 * i] = 1;
        else if (u < 9)
            for (int b = 0; b < 4; b++)
                sc[32 * i + b] = (uint8_t)mt_rand64();
        else
            H(rand_scalar)(sc + 32 * i, 0);
    }
    JAC_T exp;
    G_(set_inf)(&exp);
    for (size_t i = 0; i < N; i++) {
        JAC_T t;
        int one = sc[32 * i] == 1, zero = sc[32 * i] == 0;
        for (int b = 1; b < 32; b++)
            one &= sc[32 * i + b] == 0, zero &= sc[32 * i + b] == 0;
        if (zero || G_(affine_is_inf)(&pts[i]))
            continue;
        if (one)
            G_(from_affine)(&t, &pts[i]);
        else
            H(naive)(&t, &pts[i], sc + 32 * i, 1);
        G_(add)(&exp, &exp, &t);
    }
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
        H(run_expect)("witness-shaped scalars vs naive", pts, sc, N, threads[ti], &exp);
    free(pts);
    free(sc);
}

static void H(check_zero_scalars)(void)
{
    static const size_t sizes[] = { 1, 2, 100, 1000 };
    const size_t N = 1000;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = mt_alloc(32 * N);
    memset(sc, 0, 32 * N);
    JAC_T inf;
    G_(set_inf)(&inf);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        H(run_expect)("all-zero scalars", pts, sc, sizes[si], 0, &inf);
        H(run_expect)("all-zero scalars", pts, sc, sizes[si], 1, &inf);
    }
    free(pts);
    free(sc);
}

static void H(check_inf_points)(void)
{
    const size_t N = 300;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = H(rand_scalars)(N);
    JAC_T exp, inf;
    /* infinity at 0, every 3rd index, a run of 5, and the last index */
    for (size_t i = 0; i < N; i++)
        if (i % 3 == 0 || (i >= 100 && i < 105) || i == N - 1)
            memset(&pts[i], 0, sizeof(AFF_T));
    static const size_t sizes[] = { 1, 2, 3, 17, 100, 300 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        H(naive)(&exp, pts, sc, sizes[si]);
        H(run_expect)("with infinity points", pts, sc, sizes[si], 0, &exp);
        H(run_expect)("with infinity points", pts, sc, sizes[si], 1, &exp);
    }
    /* all points at infinity */
    memset(pts, 0, N * sizeof(AFF_T));
    G_(set_inf)(&inf);
    H(run_expect)("all points at infinity", pts, sc, N, 0, &inf);
    free(pts);
    free(sc);
}

static void H(check_big_scalars)(void)
{
    const size_t N = 64;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = mt_alloc(32 * N);
    const uint64_t hi = FR_(modulus).l[3];
    unsigned topbit = 63 - (unsigned)__builtin_clzll(hi);
    for (size_t i = 0; i < N; i++) {
        uint8_t *k = sc + 32 * i;
        switch (i % 4) {
        case 0: /* r - 1 */
            H(r_minus_1)(k);
            break;
        case 1: /* exactly 2^(bits(r)-1) */
            memset(k, 0, 32);
            k[24 + topbit / 8] = (uint8_t)(1u << (topbit % 8));
            break;
        case 2: /* random with the top bit set */
            H(rand_scalar)(k, 1);
            break;
        default: /* 1 */
            memset(k, 0, 32);
            k[0] = 1;
        }
    }
    JAC_T exp;
    static const size_t sizes[] = { 1, 2, 3, 4, 17, 64 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        H(naive)(&exp, pts, sc, sizes[si]);
        H(run_expect)("top-bit / r-1 scalars", pts, sc, sizes[si], 0, &exp);
        H(run_expect)("top-bit / r-1 scalars", pts, sc, sizes[si], 1, &exp);
    }
    /* all scalars r - 1: Σ (r-1)·P_i = -Σ P_i */
    JAC_T sum, t;
    G_(set_inf)(&sum);
    for (size_t i = 0; i < N; i++) {
        H(r_minus_1)(sc + 32 * i);
        G_(from_affine)(&t, &pts[i]);
        G_(add)(&sum, &sum, &t);
    }
    G_(neg)(&exp, &sum);
    H(run_expect)("all scalars r-1 (= -Σ P_i)", pts, sc, N, 0, &exp);
    /* (r-1)·P + 1·P = infinity (same point twice) */
    AFF_T pp[2] = { pts[5], pts[5] };
    uint8_t kk[64];
    H(r_minus_1)(kk);
    memset(kk + 32, 0, 32);
    kk[32] = 1;
    G_(set_inf)(&exp);
    H(run_expect)("(r-1)·P + 1·P", pp, kk, 2, 0, &exp);
    free(pts);
    free(sc);
}

static void H(check_dup_points)(void)
{
    const size_t N = 200;
    AFF_T *one = H(rand_points)(1);
    AFF_T *pts = mt_alloc(N * sizeof(AFF_T));
    uint8_t *sc = H(rand_scalars)(N);
    /* the same point N times: expected (Σ k_i mod r)·P from Fr arithmetic */
    for (size_t i = 0; i < N; i++)
        pts[i] = one[0];
    FR_T s, k;
    FR_(set_zero)(&s);
    for (size_t i = 0; i < N; i++) {
        H(scalar_fr)(&k, sc + 32 * i);
        FR_(add)(&s, &s, &k);
    }
    FR_(from_mont)(&s, &s);
    JAC_T p, exp;
    G_(from_affine)(&p, &one[0]);
    G_(mul_scalar)(&exp, &p, s.l, 4);
    H(run_expect)("one point repeated", pts, sc, N, 0, &exp);
    H(run_expect)("one point repeated", pts, sc, N, 1, &exp);
    /* small scalars on a repeated point: many equal digits in one bucket */
    for (size_t i = 0; i < N; i++) {
        memset(sc + 32 * i, 0, 32);
        sc[32 * i] = (uint8_t)(1 + i % 3);
    }
    H(naive)(&exp, pts, sc, N);
    H(run_expect)("one point repeated, scalars 1..3", pts, sc, N, 0, &exp);
    /* pairs (Q, -Q) with equal scalars cancel */
    AFF_T *q = H(rand_points)(N / 2);
    for (size_t i = 0; i < N / 2; i++) {
        pts[2 * i] = q[i];
        G_(affine_neg)(&pts[2 * i + 1], &q[i]);
        H(rand_scalar)(sc + 64 * i, 0);
        memcpy(sc + 64 * i + 32, sc + 64 * i, 32);
    }
    G_(set_inf)(&exp);
    H(run_expect)("pairs Q, -Q with equal scalars", pts, sc, N, 0, &exp);
    H(run_expect)("pairs Q, -Q with equal scalars", pts, sc, N, 1, &exp);
    free(q);
    free(one);
    free(pts);
    free(sc);
}

static void H(check_unaligned)(void)
{
    const size_t N = 100;
    AFF_T *pts = H(rand_points)(N);
    uint8_t *sc = H(rand_scalars)(N);
    uint8_t *pbuf = mt_alloc(N * sizeof(AFF_T) + 16), *sbuf = mt_alloc(32 * N + 16);
    memcpy(pbuf + 1, pts, N * sizeof(AFF_T));
    memcpy(sbuf + 3, sc, 32 * N);
    JAC_T exp, got;
    H(naive)(&exp, pts, sc, N);
    H(run)(&got, pbuf + 1, sbuf + 3, N, 0);
    H(expect)("unaligned input", N, 0, &got, &exp);
    free(pbuf);
    free(sbuf);
    free(pts);
    free(sc);
}

/* P_i = (i+1)·G by repeated addition, random k_i; expected (Σ k_i·(i+1))·G. */
static void H(check_large)(size_t n)
{
    const size_t B = 4096;
    AFF_T *pts = mt_alloc(n * sizeof(AFF_T));
    JAC_T *blk = mt_alloc(B * sizeof(JAC_T)), acc, g, t;
    GF_T *scratch = mt_alloc(B * sizeof(GF_T));
    double t0 = mt_clock(CLOCK_MONOTONIC);
    H(gen)(&g);
    acc = g;
    for (size_t i0 = 0; i0 < n; i0 += B) {
        size_t m = n - i0 < B ? n - i0 : B;
        for (size_t j = 0; j < m; j++) {
            blk[j] = acc;
            G_(add_affine)(&acc, &acc, &G_(generator));
        }
        G_(batch_to_affine)(pts + i0, blk, m, scratch);
    }
    /* the construction is right at its end: P_{n-1} = n·G */
    uint64_t nl[4] = { n, 0, 0, 0 };
    G_(mul_scalar)(&t, &g, nl, 4);
    G_(from_affine)(&acc, &pts[n - 1]);
    cr_assert(G_(eq)(&acc, &t), "%s: P_{n-1} != n·G", MT_NAME);

    uint8_t *sc = H(rand_scalars)(n);
    FR_T s, k, f;
    FR_(set_zero)(&s);
    for (size_t i = 0; i < n; i++) {
        H(scalar_fr)(&k, sc + 32 * i);
        FR_(from_u64)(&f, i + 1);
        FR_(mul)(&k, &k, &f);
        FR_(add)(&s, &s, &k);
    }
    FR_(from_mont)(&s, &s);
    JAC_T exp, got;
    G_(mul_scalar)(&exp, &g, s.l, 4);
    double t1 = mt_clock(CLOCK_MONOTONIC);
    double c1 = mt_clock(CLOCK_PROCESS_CPUTIME_ID);

    H(run)(&got, pts, sc, n, 0);
    double t2 = mt_clock(CLOCK_MONOTONIC);
    double c2 = mt_clock(CLOCK_PROCESS_CPUTIME_ID);
    H(expect)("P_i = (i+1)·G, random k_i", n, 0, &got, &exp);
    cr_log_info("%s MSM n = %zu (nthreads 0 = %u): %.2f s wall, %.2f s CPU "
                "(setup %.2f s wall)", MT_NAME, n, parallel_threads(), t2 - t1,
                c2 - c1, t1 - t0);
    free(pts);
    free(blk);
    free(scratch);
    free(sc);
}

#undef JAC_T
#undef AFF_T
#undef GF_T
#undef FR_T
#undef G_
#undef FR_
#undef H

#endif /* MT_G */
