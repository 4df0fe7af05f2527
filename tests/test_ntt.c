/*
 * test_ntt.c - the NTT over BN254 and BLS12-381 Fr (common/ntt.h,
 * common/ntt_tmpl.h).
 *
 *   ntt_roots       root_of_unity(s) == 5^((r-1)/2^s) mod r computed with GMP
 *                   for every s up to the 2-adicity (r given as independent
 *                   text), the snarkjs check values w[28] / w[32], the order
 *                   of each root, and the header's *_fr_root_of_unity.
 *   ntt_coset_shift coset_shift(log_n) == w[log_n + 1] (GMP), and 25 (snarkjs
 *                   Fr.shift = 5^2) at log_n = 2-adicity; the coset is
 *                   disjoint from the subgroup.
 *   ntt_domain      domain_init's tables and its -EINVAL range.
 *   ntt_forward     forward / inverse vs the naive O(n^2) DFT, n = 2 .. 256.
 *   ntt_roundtrip   inverse(forward(v)) == v, n = 2^1 .. 2^12, 2^16, 2^20
 *                   (BN254 only at 2^20), plus forward spot checks by Horner
 *                   evaluation at the large sizes.
 *   ntt_threads     forward / inverse / coset_lde give identical output for
 *                   1, 2, 3 threads and 0 (= all CPUs).
 *   ntt_coset_lde   coset_lde vs naive evaluation at shift·ω^i, n = 2 .. 1024,
 *                   and spot checks at 2^16.
 *
 * The per-curve helpers are written once in the second half of this file,
 * which includes itself once per curve (like the common/ *_tmpl.h headers)
 * with NT_C set to the curve prefix; every helper is static.
 * Randomness: fixed-seed xorshift64*.
 */
#ifndef NT_C /* ====================== first pass: common part and tests */

#include <criterion/criterion.h>
#include <errno.h>
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntt.h"

/* Scalar-field moduli as independent text (not the headers' limbs). */
#define NT_BN254_R                                                             \
    "21888242871839275222246405745257275088548364400416034343698204186575808495617"
#define NT_BLS12381_R                                                          \
    "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"
/* snarkjs (ffjavascript) Fr.w[2-adicity]. */
#define NT_BN254_W28                                                           \
    "19103219067921713944291392827692070036145651957329286315305642004821462161904"
#define NT_BLS12381_W32                                                        \
    "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"

#define NT_CAT2(a, b) a##b
#define NT_CAT(a, b) NT_CAT2(a, b)

/* ---------------------------------------------------------------- PRNG */

static uint64_t nt_rng_state;

static void nt_seed(uint64_t s)
{
    nt_rng_state = s ? s : 0x9e3779b97f4a7c15ULL;
}

static uint64_t nt_rand64(void)
{
    uint64_t x = nt_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    nt_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------------- helpers */

/* z = the integer with little-endian 64-bit limbs l[0..3]. */
static void nt_mpz_from_limbs(mpz_t z, const uint64_t l[4])
{
    mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, l);
}

/* "0x" + 64 hex digits of the little-endian limbs l[0..3]. */
static void nt_hex(char buf[80], const uint64_t l[4])
{
    snprintf(buf, 80, "0x%016llx%016llx%016llx%016llx",
             (unsigned long long)l[3], (unsigned long long)l[2],
             (unsigned long long)l[1], (unsigned long long)l[0]);
}

/* Fails the test with "what: got X, GMP expects Y" (both in hex). */
static void nt_fail_mpz(const char *what, const mpz_t got, const mpz_t exp)
{
    char *g = mpz_get_str(NULL, 16, got), *e = mpz_get_str(NULL, 16, exp);
    cr_assert_fail("%s: got 0x%s, GMP expects 0x%s", what, g, e);
}

/* ------------------------------------------------ per-curve instances */

#define NT_C bn254
#define NT_NAME "bn254"
#include "test_ntt.c"
#undef NT_C
#undef NT_NAME

#define NT_C bls12381
#define NT_NAME "bls12381"
#include "test_ntt.c"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(ntt_coset_lde, .timeout = 600);
TestSuite(ntt_coset_shift, .timeout = 600);
TestSuite(ntt_domain, .timeout = 600);
TestSuite(ntt_forward, .timeout = 600);
TestSuite(ntt_roots, .timeout = 600);
TestSuite(ntt_roundtrip, .timeout = 600);
TestSuite(ntt_threads, .timeout = 600);
#undef NT_C
#undef NT_NAME

/* --------------------------------------------------------------- tests */

Test(ntt_roots, bn254, .timeout = 30)
{
    nt_bn254_check_roots(NT_BN254_R, BN254_FR_TWO_ADICITY, NT_BN254_W28);
}

Test(ntt_roots, bls12381, .timeout = 30)
{
    nt_bls12381_check_roots(NT_BLS12381_R, BLS12381_FR_TWO_ADICITY,
                            NT_BLS12381_W32);
}

Test(ntt_coset_shift, bn254, .timeout = 30)
{
    nt_bn254_check_coset_shift(NT_BN254_R, BN254_FR_TWO_ADICITY);
}

Test(ntt_coset_shift, bls12381, .timeout = 30)
{
    nt_bls12381_check_coset_shift(NT_BLS12381_R, BLS12381_FR_TWO_ADICITY);
}

Test(ntt_domain, bn254, .timeout = 30)
{
    static const unsigned sizes[] = { 1, 2, 3, 5, 12, 16 };
    nt_bn254_check_domain_range(BN254_FR_TWO_ADICITY);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        nt_bn254_check_domain(sizes[i]);
}

Test(ntt_domain, bls12381, .timeout = 30)
{
    static const unsigned sizes[] = { 1, 2, 3, 5, 12, 16 };
    nt_bls12381_check_domain_range(BLS12381_FR_TWO_ADICITY);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        nt_bls12381_check_domain(sizes[i]);
}

/* n = 2, 4, 8, 64, 256 */
static const unsigned nt_naive_sizes[] = { 1, 2, 3, 6, 8 };

Test(ntt_forward, naive_bn254, .timeout = 30)
{
    nt_seed(0x1001);
    for (size_t i = 0; i < sizeof nt_naive_sizes / sizeof nt_naive_sizes[0]; i++)
        nt_bn254_check_naive(nt_naive_sizes[i]);
}

Test(ntt_forward, naive_bls12381, .timeout = 30)
{
    nt_seed(0x1002);
    for (size_t i = 0; i < sizeof nt_naive_sizes / sizeof nt_naive_sizes[0]; i++)
        nt_bls12381_check_naive(nt_naive_sizes[i]);
}

Test(ntt_roundtrip, bn254_small, .timeout = 30)
{
    nt_seed(0x2001);
    for (unsigned log_n = 1; log_n <= 12; log_n++)
        nt_bn254_check_roundtrip(log_n, 0, log_n >= 10 ? 4 : 0);
}

Test(ntt_roundtrip, bls12381_small, .timeout = 30)
{
    nt_seed(0x2002);
    for (unsigned log_n = 1; log_n <= 12; log_n++)
        nt_bls12381_check_roundtrip(log_n, 0, log_n >= 10 ? 4 : 0);
}

Test(ntt_roundtrip, bn254_2_16, .timeout = 60)
{
    nt_seed(0x2003);
    nt_bn254_check_roundtrip(16, 0, 8);
}

Test(ntt_roundtrip, bls12381_2_16, .timeout = 60)
{
    nt_seed(0x2004);
    nt_bls12381_check_roundtrip(16, 0, 8);
}

Test(ntt_roundtrip, bn254_2_20, .timeout = 120)
{
    nt_seed(0x2005);
    nt_bn254_check_roundtrip(20, 0, 6);
}

Test(ntt_threads, bn254_2_16, .timeout = 60)
{
    nt_seed(0x3001);
    nt_bn254_check_threads(16);
}

Test(ntt_threads, bls12381_2_16, .timeout = 60)
{
    nt_seed(0x3002);
    nt_bls12381_check_threads(16);
}

/* n = 2, 4, 16, 128, 1024 */
static const unsigned nt_coset_sizes[] = { 1, 2, 4, 7, 10 };

Test(ntt_coset_lde, naive_bn254, .timeout = 30)
{
    nt_seed(0x4001);
    for (size_t i = 0; i < sizeof nt_coset_sizes / sizeof nt_coset_sizes[0]; i++)
        nt_bn254_check_coset_naive(nt_coset_sizes[i]);
}

Test(ntt_coset_lde, naive_bls12381, .timeout = 30)
{
    nt_seed(0x4002);
    for (size_t i = 0; i < sizeof nt_coset_sizes / sizeof nt_coset_sizes[0]; i++)
        nt_bls12381_check_coset_naive(nt_coset_sizes[i]);
}

Test(ntt_coset_lde, spot_bn254_2_16, .timeout = 60)
{
    nt_seed(0x4003);
    nt_bn254_check_coset_spot(16, 8);
}

Test(ntt_coset_lde, spot_bls12381_2_16, .timeout = 60)
{
    nt_seed(0x4004);
    nt_bls12381_check_coset_spot(16, 8);
}

#else /* ============================ per-curve part (NT_C = curve prefix) */

#define FR_T NT_CAT(NT_C, _fr_t)
#define FR(name) NT_CAT(NT_C, _fr_##name)
#define NTT(name) NT_CAT(NT_C, _ntt_##name)
#define DOM struct NT_CAT(NT_C, _ntt_domain)
#define H(name) NT_CAT(nt_, NT_CAT(NT_C, _##name))

/* Uniformly random element of Fr (any value < r is a valid Montgomery
 * representation, so this is uniform in either form). */
static void H(rand)(FR_T *a)
{
    uint64_t mask = ~0ULL >> __builtin_clzll(FR(modulus).l[3]);
    do {
        for (int i = 0; i < 4; i++)
            a->l[i] = nt_rand64();
        a->l[3] &= mask;
    } while (!FR(is_canonical)(a->l));
}

static FR_T *H(alloc)(size_t n)
{
    FR_T *v = malloc(n * sizeof(FR_T));
    cr_assert(v != NULL, "out of memory (%zu elements)", n);
    return v;
}

static FR_T *H(rand_vec)(size_t n)
{
    FR_T *v = H(alloc)(n);
    for (size_t i = 0; i < n; i++)
        H(rand)(&v[i]);
    return v;
}

/* z = the standard-form value of the Montgomery-form a. */
static void H(to_mpz)(mpz_t z, const FR_T *a)
{
    FR_T s;
    FR(from_mont)(&s, a);
    nt_mpz_from_limbs(z, s.l);
}

/* Hex of the standard-form value of the Montgomery-form a. */
static void H(str)(char buf[80], const FR_T *a)
{
    FR_T s;
    FR(from_mont)(&s, a);
    nt_hex(buf, s.l);
}

/* Fails on the first i < n with got[i] != exp[i]. */
static void H(expect_vec)(const char *what, unsigned log_n, const FR_T *got,
                          const FR_T *exp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!FR(eq)(&got[i], &exp[i])) {
            char g[80], e[80];
            H(str)(g, &got[i]);
            H(str)(e, &exp[i]);
            cr_assert_fail("%s %s, n = 2^%u: first mismatch at index %zu: "
                           "got %s, expected %s",
                           NT_NAME, what, log_n, i, g, e);
        }
    }
}

static void H(expect_one)(const char *what, unsigned log_n, size_t i,
                          const FR_T *got, const FR_T *exp)
{
    if (!FR(eq)(got, exp)) {
        char g[80], e[80];
        H(str)(g, got);
        H(str)(e, exp);
        cr_assert_fail("%s %s, n = 2^%u, index %zu: got %s, expected %s",
                       NT_NAME, what, log_n, i, g, e);
    }
}

/* ret = Σ_j c_j x^j (j < n). */
static void H(horner)(FR_T *ret, const FR_T *c, size_t n, const FR_T *x)
{
    FR_T acc;
    FR(set_zero)(&acc);
    for (size_t j = n; j-- > 0;) {
        FR(mul)(&acc, &acc, x);
        FR(add)(&acc, &acc, &c[j]);
    }
    *ret = acc;
}

/* pw[k] = w^k, k < n, by repeated multiplication. */
static FR_T *H(powers)(const FR_T *w, size_t n)
{
    FR_T *pw = H(alloc)(n);
    FR(set_one)(&pw[0]);
    for (size_t k = 1; k < n; k++)
        FR(mul)(&pw[k], &pw[k - 1], w);
    return pw;
}

/* ret = w^k. */
static void H(pow_u64)(FR_T *ret, const FR_T *w, uint64_t k)
{
    uint64_t e[1] = { k };
    FR(pow)(ret, w, e, 1);
}

static void H(init)(DOM *d, unsigned log_n, unsigned nthreads)
{
    int rc = NTT(domain_init)(d, log_n, nthreads);
    cr_assert(rc == 0, "%s domain_init(2^%u) = %d", NT_NAME, log_n, rc);
}

/* ------------------------------------------------------------- roots */

static void H(check_roots)(const char *r_str, unsigned adicity,
                           const char *w_top_str)
{
    mpz_t r, rm1, e, w, t, five;
    char what[160];
    mpz_inits(r, rm1, e, w, t, five, NULL);
    cr_assert(mpz_set_str(r, r_str, 0) == 0);
    mpz_set_ui(five, 5);

    /* The header's modulus is r; r - 1 = 2^adicity · odd; 5 is the smallest
     * quadratic non-residue (ffjavascript searches 2, 3, 4, 5, ...). */
    nt_mpz_from_limbs(t, FR(modulus).l);
    if (mpz_cmp(t, r) != 0)
        nt_fail_mpz(NT_NAME " Fr modulus", t, r);
    mpz_sub_ui(rm1, r, 1);
    cr_assert(mpz_scan1(rm1, 0) == adicity, "%s: 2-adicity of r-1 is %lu, not %u",
              NT_NAME, (unsigned long)mpz_scan1(rm1, 0), adicity);
    for (unsigned long q = 2; q < 5; q++) {
        mpz_set_ui(t, q);
        cr_assert(mpz_jacobi(t, r) == 1, "%s: %lu is a non-residue", NT_NAME, q);
    }
    cr_assert(mpz_jacobi(five, r) == -1, "%s: 5 is a residue", NT_NAME);

    for (unsigned s = 0; s <= adicity; s++) {
        mpz_tdiv_q_2exp(e, rm1, s);
        mpz_powm(w, five, e, r); /* w[s] */
        FR_T got;
        NTT(root_of_unity)(&got, s);
        H(to_mpz)(t, &got);
        if (mpz_cmp(t, w) != 0) {
            snprintf(what, sizeof what, "%s root_of_unity(%u)", NT_NAME, s);
            nt_fail_mpz(what, t, w);
        }
        /* order exactly 2^s: w^(2^s) = 1 and, for s >= 1, w^(2^(s-1)) = -1 */
        mpz_set(t, w);
        for (unsigned k = 0; k < s; k++) {
            if (k + 1 == s)
                cr_assert(mpz_cmp(t, rm1) == 0,
                          "%s: w[%u]^(2^%u) != -1", NT_NAME, s, s - 1);
            mpz_powm_ui(t, t, 2, r);
        }
        cr_assert(mpz_cmp_ui(t, 1) == 0, "%s: w[%u]^(2^%u) != 1", NT_NAME, s, s);
        if (s == adicity) {
            /* snarkjs check value */
            cr_assert(mpz_set_str(t, w_top_str, 0) == 0);
            if (mpz_cmp(w, t) != 0) {
                snprintf(what, sizeof what, "%s GMP w[%u] vs snarkjs value",
                         NT_NAME, s);
                nt_fail_mpz(what, w, t);
            }
            /* the header constant is the same root */
            cr_assert(FR(eq)(&got, &FR(root_of_unity)),
                      "%s: *_fr_root_of_unity != root_of_unity(%u)", NT_NAME, s);
        }
    }
    mpz_clears(r, rm1, e, w, t, five, NULL);
}

static void H(check_coset_shift)(const char *r_str, unsigned adicity)
{
    mpz_t r, rm1, e, w, t, five;
    char what[160];
    mpz_inits(r, rm1, e, w, t, five, NULL);
    cr_assert(mpz_set_str(r, r_str, 0) == 0);
    mpz_sub_ui(rm1, r, 1);
    mpz_set_ui(five, 5);
    for (unsigned log_n = 0; log_n <= adicity; log_n++) {
        if (log_n < adicity) {
            mpz_tdiv_q_2exp(e, rm1, log_n + 1);
            mpz_powm(w, five, e, r); /* w[log_n + 1] */
        } else {
            mpz_set_ui(w, 25); /* Fr.shift = nqr^2 */
        }
        FR_T got;
        NTT(coset_shift)(&got, log_n);
        H(to_mpz)(t, &got);
        if (mpz_cmp(t, w) != 0) {
            snprintf(what, sizeof what, "%s coset_shift(%u)", NT_NAME, log_n);
            nt_fail_mpz(what, t, w);
        }
        /* shift^n != 1: the coset shift·<ω_n> misses <ω_n> */
        mpz_set_ui(e, 1);
        mpz_mul_2exp(e, e, log_n);
        mpz_powm(t, w, e, r);
        cr_assert(mpz_cmp_ui(t, 1) != 0, "%s: coset_shift(%u)^n == 1",
                  NT_NAME, log_n);
    }
    mpz_clears(r, rm1, e, w, t, five, NULL);
}

/* ------------------------------------------------------------ domain */

static void H(check_domain_range)(unsigned adicity)
{
    DOM d;
    int rc = NTT(domain_init)(&d, 0, 0);
    cr_assert(rc == -EINVAL, "%s domain_init(log_n = 0) = %d, want -EINVAL",
              NT_NAME, rc);
    rc = NTT(domain_init)(&d, adicity + 1, 0);
    cr_assert(rc == -EINVAL, "%s domain_init(log_n = %u) = %d, want -EINVAL",
              NT_NAME, adicity + 1, rc);
}

static void H(check_domain)(unsigned log_n)
{
    DOM d;
    size_t n = (size_t)1 << log_n;
    H(init)(&d, log_n, 0);
    cr_assert(d.log_n == log_n && d.n == n, "%s domain(2^%u): log_n %u, n %zu",
              NT_NAME, log_n, d.log_n, d.n);
    FR_T w, x, t;
    NTT(root_of_unity)(&w, log_n);
    FR(set_one)(&x);
    for (size_t i = 0; i < n / 2; i++) {
        H(expect_one)("domain roots[i] = w^i", log_n, i, &d.roots[i], &x);
        FR(mul)(&x, &x, &w);
    }
    /* ω^(n/2) = -1 */
    FR(set_one)(&t);
    FR(neg)(&t, &t);
    H(expect_one)("w^(n/2) = -1", log_n, n / 2, &x, &t);
    NTT(coset_shift)(&t, log_n);
    H(expect_one)("domain shift", log_n, 0, &d.shift, &t);
    FR(from_u64)(&t, n);
    FR(mul)(&t, &t, &d.n_inv);
    FR(set_one)(&x);
    H(expect_one)("domain n_inv · n", log_n, 0, &t, &x);
    NTT(domain_free)(&d);
    cr_assert(d.roots == NULL);
}

/* ------------------------------------------------ forward vs naive DFT */

static void H(check_naive)(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    FR_T w, ninv, t;
    NTT(root_of_unity)(&w, log_n);
    FR_T *pw = H(powers)(&w, n);
    FR_T *a = H(rand_vec)(n), *fwd = H(alloc)(n), *inv = H(alloc)(n),
         *v = H(alloc)(n);
    FR(from_u64)(&ninv, n);
    FR(inv)(&ninv, &ninv);
    for (size_t i = 0; i < n; i++) {
        FR(set_zero)(&fwd[i]);
        FR(set_zero)(&inv[i]);
        for (size_t j = 0; j < n; j++) {
            size_t k = (i * j) & (n - 1);
            FR(mul)(&t, &a[j], &pw[k]);          /* a_j ω^{ij} */
            FR(add)(&fwd[i], &fwd[i], &t);
            FR(mul)(&t, &a[j], &pw[(n - k) & (n - 1)]); /* a_j ω^{-ij} */
            FR(add)(&inv[i], &inv[i], &t);
        }
        FR(mul)(&inv[i], &inv[i], &ninv);
    }
    static const unsigned threads[] = { 0, 1 };
    for (size_t ti = 0; ti < 2; ti++) {
        DOM d;
        H(init)(&d, log_n, threads[ti]);
        memcpy(v, a, n * sizeof(FR_T));
        NTT(forward)(v, &d, threads[ti]);
        H(expect_vec)("forward vs naive DFT", log_n, v, fwd, n);
        memcpy(v, a, n * sizeof(FR_T));
        NTT(inverse)(v, &d, threads[ti]);
        H(expect_vec)("inverse vs naive inverse DFT", log_n, v, inv, n);
        NTT(domain_free)(&d);
    }
    free(pw);
    free(a);
    free(fwd);
    free(inv);
    free(v);
}

/* --------------------------------------------------------- roundtrip */

/* Checks v == forward(coef) at nspot indices (0, 1, n/2, n-1, random) by
 * evaluating coef at ω^i with Horner's rule. */
static void H(spot_forward)(const char *what, unsigned log_n, const FR_T *v,
                            const FR_T *coef, const FR_T *x_mul, unsigned nspot)
{
    size_t n = (size_t)1 << log_n;
    FR_T w, x, e;
    NTT(root_of_unity)(&w, log_n);
    for (unsigned s = 0; s < nspot; s++) {
        size_t i = s == 0 ? 0 : s == 1 ? 1 : s == 2 ? n / 2 : s == 3 ? n - 1
                 : (size_t)(nt_rand64() & (n - 1));
        H(pow_u64)(&x, &w, i);
        if (x_mul)
            FR(mul)(&x, &x, x_mul);
        H(horner)(&e, coef, n, &x);
        H(expect_one)(what, log_n, i, &v[i], &e);
    }
}

static void H(check_roundtrip)(unsigned log_n, unsigned nthreads, unsigned nspot)
{
    size_t n = (size_t)1 << log_n;
    FR_T *orig = H(rand_vec)(n), *v = H(alloc)(n);
    memcpy(v, orig, n * sizeof(FR_T));
    DOM d;
    H(init)(&d, log_n, nthreads);
    NTT(forward)(v, &d, nthreads);
    cr_assert(memcmp(v, orig, n * sizeof(FR_T)) != 0,
              "%s forward(2^%u) left a random vector unchanged", NT_NAME, log_n);
    H(spot_forward)("forward vs Horner", log_n, v, orig, NULL, nspot);
    NTT(inverse)(v, &d, nthreads);
    H(expect_vec)("inverse(forward(v)) == v", log_n, v, orig, n);
    /* and the other way round */
    NTT(inverse)(v, &d, nthreads);
    NTT(forward)(v, &d, nthreads);
    H(expect_vec)("forward(inverse(v)) == v", log_n, v, orig, n);
    NTT(domain_free)(&d);
    free(orig);
    free(v);
}

/* ------------------------------------------------------------ threads */

static void H(check_threads)(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    static const unsigned threads[] = { 1, 2, 3, 0 };
    FR_T *in = H(rand_vec)(n), *ref[3], *v = H(alloc)(n);
    static const char *const names[3] = { "forward", "inverse", "coset_lde" };
    for (int op = 0; op < 3; op++)
        ref[op] = H(alloc)(n);
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
        DOM d;
        H(init)(&d, log_n, threads[ti]);
        for (int op = 0; op < 3; op++) {
            memcpy(v, in, n * sizeof(FR_T));
            if (op == 0)
                NTT(forward)(v, &d, threads[ti]);
            else if (op == 1)
                NTT(inverse)(v, &d, threads[ti]);
            else
                NTT(coset_lde)(v, &d, threads[ti]);
            if (ti == 0) {
                memcpy(ref[op], v, n * sizeof(FR_T));
            } else {
                char what[80];
                snprintf(what, sizeof what, "%s with %u threads vs 1 thread",
                         names[op], threads[ti]);
                H(expect_vec)(what, log_n, v, ref[op], n);
            }
        }
        NTT(domain_free)(&d);
    }
    for (int op = 0; op < 3; op++)
        free(ref[op]);
    free(in);
    free(v);
}

/* ---------------------------------------------------------- coset LDE */

/* p random coefficients; e_i = p(ω^i) naively; coset_lde(e) must equal
 * p(shift·ω^i). */
static void H(check_coset_naive)(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    FR_T w, shift, x;
    NTT(root_of_unity)(&w, log_n);
    NTT(coset_shift)(&shift, log_n);
    FR_T *pw = H(powers)(&w, n);
    FR_T *p = H(rand_vec)(n), *e = H(alloc)(n), *exp = H(alloc)(n);
    for (size_t i = 0; i < n; i++) {
        H(horner)(&e[i], p, n, &pw[i]);
        FR(mul)(&x, &shift, &pw[i]);
        H(horner)(&exp[i], p, n, &x);
    }
    DOM d;
    H(init)(&d, log_n, 0);
    NTT(coset_lde)(e, &d, 0);
    H(expect_vec)("coset_lde vs naive p(shift·ω^i)", log_n, e, exp, n);
    NTT(domain_free)(&d);
    free(pw);
    free(p);
    free(e);
    free(exp);
}

/* Large n: e = forward(p) (checked elsewhere), then coset_lde(e) at nspot
 * indices vs Horner evaluation of p at shift·ω^i. */
static void H(check_coset_spot)(unsigned log_n, unsigned nspot)
{
    size_t n = (size_t)1 << log_n;
    FR_T *p = H(rand_vec)(n), *v = H(alloc)(n);
    memcpy(v, p, n * sizeof(FR_T));
    DOM d;
    H(init)(&d, log_n, 0);
    NTT(forward)(v, &d, 0);
    NTT(coset_lde)(v, &d, 0);
    FR_T shift;
    NTT(coset_shift)(&shift, log_n);
    H(spot_forward)("coset_lde vs Horner p(shift·ω^i)", log_n, v, p, &shift,
                    nspot);
    NTT(domain_free)(&d);
    free(p);
    free(v);
}

#undef FR_T
#undef FR
#undef NTT
#undef DOM
#undef H

#endif /* NT_C */
