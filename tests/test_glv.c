/*
 * test_glv.c - the GLV endomorphism of G1 (common/glv.h, common/glv.c,
 * common/glv_constants.h) and the G1 MSMs that use it, one suite per curve:
 *
 *   constants    with GMP: λ² + λ + 1 ≡ 0 (mod r), β³ ≡ 1 (mod q), β ≠ 1
 *   phi_lambda   φ(P) = (β·x, y) equals λ·P (double-and-add) on the
 *                generator and 32 random points
 *   split        k1 + k2·λ ≡ k (mod r) with GMP, |k1|, |k2| < 2^X_GLV_BITS,
 *                for edge scalars (0, 1, 2, r−1, r−2, λ, λ±1, r−λ, (r±1)/2,
 *                2^127, 2^128±1, r, r+1, 2r−1, 2^256−1) and 4000 random ones
 *                (below r and any 256-bit value); both signs of both halves
 *                must occur
 *   msm_edges    the G1 MSM against a naive Σ k_i·P_i (_mul_scalar, _add) on
 *                scalars whose k1, k2 or both are negative, k = r−1 for all,
 *                all scalars equal, λ and its neighbours, scalars ≥ r, and
 *                points at infinity, repeated and negated, 1 and 2 threads
 * and for ψ on BLS12-381 G2 (suite psi_bls12381):
 *   psi_z        ψ(Q) = (conj(x)·cx, conj(y)·cy) equals z·Q on the generator
 *                and 16 random points
 *   split        Σ_j (−1)^j·d_j·z^j ≡ k (mod r) with GMP, d_j < 2^64, for
 *                edge scalars (|z|^j ± 1, r−1, r, 2^256−1, …) and random ones
 *   msm_edges    the G2 MSM against the naive sum: r−1 for all, all equal,
 *                |z|^j neighbours (zero digits), scalars ≥ r, infinities,
 *                repeated and negated points, 1 and 2 threads
 * Randomness: fixed-seed xorshift64*.
 */
#ifndef GT_P /* ====================== first pass: common part and tests */

#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "glv.h"
#include "msm.h"

#define GT_CAT2(a, b) a##b
#define GT_CAT(a, b) GT_CAT2(a, b)

static uint64_t gt_rng = 0x2545f4914f6cdd1dULL;

static uint64_t gt_rand64(void)
{
    gt_rng ^= gt_rng << 13;
    gt_rng ^= gt_rng >> 7;
    gt_rng ^= gt_rng << 17;
    return gt_rng * 0x2545f4914f6cdd1dULL;
}

static void gt_to_mpz(mpz_t z, const uint64_t *l, size_t n)
{
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

static void gt_from_mpz(uint64_t l[4], const mpz_t z)
{
    memset(l, 0, 32);
    cr_assert(mpz_sizeinbase(z, 2) <= 256);
    mpz_export(l, NULL, -1, sizeof(uint64_t), 0, 0, z);
}

/* Checks k1 + k2·λ ≡ k (mod r) and the bound; returns the sign bits. */
static unsigned gt_check_split(const struct glv_curve *c, const uint64_t k[4],
                               const uint64_t lam[4], unsigned bits)
{
    uint64_t m1[2], m2[2];
    unsigned neg;
    cr_assert_eq(glv_split(c, k, m1, m2, &neg), 0, "split failed");
    mpz_t zk, z1, z2, zl, zr, t;
    mpz_inits(zk, z1, z2, zl, zr, t, NULL);
    gt_to_mpz(zk, k, 4);
    gt_to_mpz(z1, m1, 2);
    gt_to_mpz(z2, m2, 2);
    gt_to_mpz(zl, lam, 4);
    gt_to_mpz(zr, c->r, 4);
    cr_assert(mpz_sizeinbase(z1, 2) <= bits || mpz_sgn(z1) == 0, "|k1| too large");
    cr_assert(mpz_sizeinbase(z2, 2) <= bits || mpz_sgn(z2) == 0, "|k2| too large");
    if (neg & 1)
        mpz_neg(z1, z1);
    if (neg & 2)
        mpz_neg(z2, z2);
    mpz_mul(t, z2, zl);
    mpz_add(t, t, z1);
    mpz_sub(t, t, zk);
    mpz_mod(t, t, zr);
    char *ks = mpz_get_str(NULL, 16, zk);
    cr_assert_eq(mpz_sgn(t), 0, "k1 + k2*lambda != k mod r for k = 0x%s", ks);
    free(ks);
    mpz_clears(zk, z1, z2, zl, zr, t, NULL);
    return neg;
}

/* ------------------------------------------------- per-curve instances */

#define GT_P bn254
#define GT_BITS BN254_GLV_BITS
#include "test_glv.c"
#undef GT_P
#undef GT_BITS

#define GT_P bls12381
#define GT_BITS BLS12381_GLV_BITS
#include "test_glv.c"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(glv_bn254, .timeout = 120);
TestSuite(glv_bls12381, .timeout = 120);
TestSuite(psi_bls12381, .timeout = 120);
#undef GT_P
#undef GT_BITS

#define GT_TESTS(P)                                                            \
    Test(glv_##P, constants) { gt_##P##_constants(); }                         \
    Test(glv_##P, phi_lambda, .timeout = 60) { gt_##P##_phi_lambda(); }        \
    Test(glv_##P, split, .timeout = 60) { gt_##P##_split(); }                  \
    Test(glv_##P, msm_edges, .timeout = 120) { gt_##P##_msm_edges(); }

GT_TESTS(bn254)
GT_TESTS(bls12381)

/* ------------------------------------------------ ψ on BLS12-381 G2 */

static void gt_g2_rand(bls12381_g2_affine_t *p)
{
    uint64_t k[4] = { gt_rand64(), gt_rand64(), gt_rand64(), gt_rand64() >> 4 };
    bls12381_g2_jac_t j;
    bls12381_g2_mul_scalar_affine(&j, &bls12381_g2_generator, k, 4);
    bls12381_g2_to_affine(p, &j);
}

Test(psi_bls12381, psi_z, .timeout = 60)
{
    static const bls12381_fp2_t cx = BLS12381_PSI_CX, cy = BLS12381_PSI_CY;
    for (int i = 0; i < 17; i++) {
        bls12381_g2_affine_t q, ps;
        if (i == 0)
            q = bls12381_g2_generator;
        else
            gt_g2_rand(&q);
        bls12381_fp2_conj(&ps.x, &q.x);
        bls12381_fp2_mul(&ps.x, &ps.x, &cx);
        bls12381_fp2_conj(&ps.y, &q.y);
        bls12381_fp2_mul(&ps.y, &ps.y, &cy);
        uint64_t z[1] = { BLS12381_PARAM_ABS };
        bls12381_g2_jac_t zq, pj;
        bls12381_g2_mul_scalar_affine(&zq, &q, z, 1);
        bls12381_g2_neg(&zq, &zq); /* z < 0 */
        bls12381_g2_from_affine(&pj, &ps);
        cr_assert(bls12381_g2_eq(&zq, &pj), "psi(Q) != z*Q (point %d)", i);
    }
}

static void gt_psi_check(const uint64_t k[4])
{
    uint64_t m[4][2];
    unsigned neg;
    cr_assert_eq(bls12381_psi_split(k, m, &neg), 0);
    static const uint64_t r[4] = BLS12381_FR_P;
    mpz_t zr, zz, zk, acc, pw, t;
    mpz_inits(zr, zz, zk, acc, pw, t, NULL);
    gt_to_mpz(zr, r, 4);
    gt_to_mpz(zk, k, 4);
    mpz_set_ui(zz, BLS12381_PARAM_ABS);
    mpz_neg(zz, zz);                       /* z < 0 */
    mpz_set_ui(pw, 1);
    for (int j = 0; j < 4; j++) {
        cr_assert_eq(m[j][1], 0, "digit above 2^64");
        mpz_set_ui(t, m[j][0]);
        if ((neg >> j) & 1)
            mpz_neg(t, t);
        mpz_addmul(acc, t, pw);
        mpz_mul(pw, pw, zz);
    }
    mpz_sub(acc, acc, zk);
    mpz_mod(acc, acc, zr);
    cr_assert_eq(mpz_sgn(acc), 0, "psi split does not sum to k mod r");
    mpz_clears(zr, zz, zk, acc, pw, t, NULL);
}

/* edge scalar number e (0 ..), or -1 past the last */
static int gt_psi_edge(uint64_t k[4], int e)
{
    static const uint64_t r[4] = BLS12381_FR_P;
    mpz_t t, zr;
    mpz_inits(t, zr, NULL);
    gt_to_mpz(zr, r, 4);
    int j = e / 3, o = e % 3 - 1; /* |z|^j + o, j = 0..4 */
    if (j <= 4) {
        mpz_ui_pow_ui(t, BLS12381_PARAM_ABS, (unsigned long)j);
        if (o < 0)
            mpz_sub_ui(t, t, 1);
        else
            mpz_add_ui(t, t, (unsigned long)o);
        if (j == 4)
            mpz_mod(t, t, zr);
    } else if (e == 15) {
        mpz_sub_ui(t, zr, 1);      /* r − 1 */
    } else if (e < 18) {
        mpz_add_ui(t, zr, (unsigned long)(e - 16)); /* r, r + 1 */
    } else if (e == 18) {
        mpz_ui_pow_ui(t, 2, 256);
        mpz_sub_ui(t, t, 1);
    } else {
        mpz_clears(t, zr, NULL);
        return -1;
    }
    gt_from_mpz(k, t);
    mpz_clears(t, zr, NULL);
    return 0;
}

Test(psi_bls12381, split, .timeout = 60)
{
    uint64_t k[4];
    for (int e = 0; gt_psi_edge(k, e) == 0; e++)
        gt_psi_check(k);
    for (int i = 0; i < 4000; i++) {
        for (int j = 0; j < 4; j++)
            k[j] = gt_rand64();
        gt_psi_check(k);
    }
}

Test(psi_bls12381, msm_edges, .timeout = 120)
{
    enum { N = 120 };
    bls12381_g2_affine_t *p = malloc(N * sizeof(*p));
    uint64_t(*k)[4] = malloc(N * 32);
    cr_assert(p && k);
    for (size_t i = 0; i < N; i++)
        gt_g2_rand(&p[i]);
    memset(&p[5], 0, sizeof(*p));
    p[30] = p[31];
    bls12381_g2_affine_neg(&p[32], &p[33]);
    static const uint64_t r[4] = BLS12381_FR_P;
    for (int kase = 0; kase < 4; kase++) {
        for (size_t i = 0; i < N; i++) {
            switch (kase) {
            case 0: /* r − 1 */
                memcpy(k[i], r, 32);
                k[i][0] -= 1;
                break;
            case 1: /* all equal */
                if (i == 0)
                    for (int j = 0; j < 4; j++)
                        k[0][j] = gt_rand64() >> (j == 3 ? 2 : 0);
                else
                    memcpy(k[i], k[0], 32);
                break;
            case 2: /* edges, cycling (zero digits, ≥ r) */
                if (gt_psi_edge(k[i], (int)(i % 19)) < 0)
                    cr_assert_fail("edge %zu", i % 19);
                break;
            default: /* any 256-bit value */
                for (int j = 0; j < 4; j++)
                    k[i][j] = gt_rand64();
                break;
            }
        }
        memset(k[11], 0, 32);
        memset(k[12], 0, 32), k[12][0] = 1;
        bls12381_g2_jac_t want, got, t;
        bls12381_g2_set_inf(&want);
        for (size_t i = 0; i < N; i++) {
            if (bls12381_g2_affine_is_inf(&p[i]))
                continue;
            bls12381_g2_mul_scalar_affine(&t, &p[i], k[i], 4);
            bls12381_g2_add(&want, &want, &t);
        }
        for (unsigned th = 1; th <= 2; th++) {
            cr_assert_eq(bls12381_g2_msm(&got, p, k, N, th), 0);
            cr_assert(bls12381_g2_eq(&got, &want), "G2 MSM != naive (case %d, %u threads)",
                      kase, th);
        }
    }
    free(p);
    free(k);
}

#else /* ================================== second pass: one curve, GT_P */

#define H(name) GT_CAT(GT_CAT(gt_, GT_P), _##name)
#define X(name) GT_CAT(GT_P, _##name)
#define AFF X(g1_affine_t)
#define JAC X(g1_jac_t)

static void H(constants)(void)
{
    mpz_t r, q, l, t, b;
    mpz_inits(r, q, l, t, b, NULL);
    gt_to_mpz(r, X(glv).r, 4);
    gt_to_mpz(q, X(fp_modulus).l, sizeof(X(fp_modulus).l) / 8);
    gt_to_mpz(l, X(glv_lambda), 4);
    mpz_mul(t, l, l);
    mpz_add(t, t, l);
    mpz_add_ui(t, t, 1);
    mpz_mod(t, t, r);
    cr_assert_eq(mpz_sgn(t), 0, "lambda^2 + lambda + 1 != 0 mod r");
    X(fp_t) bs;
    X(fp_from_mont)(&bs, &X(glv_beta));
    gt_to_mpz(b, bs.l, sizeof(bs.l) / 8);
    cr_assert_neq(mpz_cmp_ui(b, 1), 0, "beta = 1");
    mpz_powm_ui(t, b, 3, q);
    cr_assert_eq(mpz_cmp_ui(t, 1), 0, "beta^3 != 1 mod q");
    mpz_clears(r, q, l, t, b, NULL);
}

static void H(rand_point)(AFF *p)
{
    uint64_t k[4] = { gt_rand64(), gt_rand64(), gt_rand64(), gt_rand64() >> 4 };
    JAC j;
    X(g1_mul_scalar_affine)(&j, &X(g1_generator), k, 4);
    X(g1_to_affine)(p, &j);
}

static void H(phi_lambda)(void)
{
    for (int i = 0; i < 33; i++) {
        AFF p, ph;
        if (i == 0)
            p = X(g1_generator);
        else
            H(rand_point)(&p);
        X(fp_mul)(&ph.x, &p.x, &X(glv_beta));
        ph.y = p.y;
        JAC lp, phj;
        X(g1_mul_scalar_affine)(&lp, &p, X(glv_lambda), 4);
        X(g1_from_affine)(&phj, &ph);
        cr_assert(X(g1_affine_is_on_curve)(&ph), "phi(P) not on the curve");
        cr_assert(X(g1_eq)(&lp, &phj), "phi(P) != lambda*P (point %d)", i);
    }
}

static void H(split)(void)
{
    const struct glv_curve *c = &X(glv);
    mpz_t r, l, t;
    mpz_inits(r, l, t, NULL);
    gt_to_mpz(r, c->r, 4);
    gt_to_mpz(l, X(glv_lambda), 4);
    /* edges as GMP expressions: r + a, λ + a, 2^e + a, … */
    uint64_t k[4];
    unsigned seen = 0;
    const long offs[] = { -2, -1, 0, 1, 2 };
    for (int which = 0; which < 6; which++)
        for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
            switch (which) {
            case 0: mpz_set_ui(t, 0); break;                 /* small */
            case 1: mpz_set(t, r); break;                    /* r ± */
            case 2: mpz_set(t, l); break;                    /* λ ± */
            case 3: mpz_sub(t, r, l); break;                 /* r − λ ± */
            case 4: mpz_fdiv_q_2exp(t, r, 1); break;         /* (r±1)/2 */
            default: mpz_ui_pow_ui(t, 2, 128); break;        /* 2^128 ± */
            }
            if (offs[o] < 0)
                mpz_sub_ui(t, t, (unsigned long)-offs[o]);
            else
                mpz_add_ui(t, t, (unsigned long)offs[o]);
            if (mpz_sgn(t) < 0)
                continue;
            gt_from_mpz(k, t);
            seen |= 1u << gt_check_split(c, k, X(glv_lambda), GT_BITS);
        }
    mpz_mul_ui(t, r, 2);
    mpz_sub_ui(t, t, 1);
    gt_from_mpz(k, t);
    gt_check_split(c, k, X(glv_lambda), GT_BITS);
    memset(k, 0xff, sizeof(k));                              /* 2^256 − 1 */
    gt_check_split(c, k, X(glv_lambda), GT_BITS);
    k[0] = k[1] = k[2] = 0, k[3] = 1ULL << 63;
    gt_check_split(c, k, X(glv_lambda), GT_BITS);
    for (int i = 0; i < 4000; i++) {
        for (int j = 0; j < 4; j++)
            k[j] = gt_rand64();
        if (i & 1) {
            gt_to_mpz(t, k, 4);
            mpz_mod(t, t, r);
            gt_from_mpz(k, t);
        }
        seen |= 1u << gt_check_split(c, k, X(glv_lambda), GT_BITS);
    }
    /* all four sign combinations of (k1, k2) occurred */
    cr_assert_eq(seen, 0xfu, "sign patterns seen: %#x", seen);
    mpz_clears(r, l, t, NULL);
}

/* ret = Σ k_i·P_i by _mul_scalar and _add */
static void H(naive)(JAC *ret, const AFF *p, const uint64_t (*k)[4], size_t n)
{
    X(g1_set_inf)(ret);
    for (size_t i = 0; i < n; i++) {
        JAC t;
        if (X(g1_affine_is_inf)(&p[i]))
            continue;
        X(g1_mul_scalar_affine)(&t, &p[i], k[i], 4);
        X(g1_add)(ret, ret, &t);
    }
}

/* A random scalar below r whose split has sign bits `want`. */
static void H(scalar_with_signs)(uint64_t k[4], unsigned want)
{
    for (int tries = 0; tries < 100000; tries++) {
        uint64_t m1[2], m2[2];
        unsigned neg;
        for (int j = 0; j < 4; j++)
            k[j] = gt_rand64();
        k[3] %= X(glv).r[3];             /* below r */
        if (glv_split(&X(glv), k, m1, m2, &neg) == 0 && neg == want)
            return;
    }
    cr_assert_fail("no scalar with split signs %u found", want);
}

static void H(msm_edges)(void)
{
    enum { N = 200 };
    AFF *p = malloc(N * sizeof(AFF));
    uint64_t(*k)[4] = malloc(N * 32);
    cr_assert(p && k);
    for (size_t i = 0; i < N; i++)
        H(rand_point)(&p[i]);
    memset(&p[7], 0, sizeof(AFF));      /* infinity */
    memset(&p[50], 0, sizeof(AFF));
    p[60] = p[61];                       /* repeat */
    X(g1_affine_neg)(&p[62], &p[63]);    /* negation */
    mpz_t r, l, t;
    mpz_inits(r, l, t, NULL);
    gt_to_mpz(r, X(glv).r, 4);
    gt_to_mpz(l, X(glv_lambda), 4);
    for (int kase = 0; kase < 7; kase++) {
        for (size_t i = 0; i < N; i++) {
            switch (kase) {
            case 0: case 1: case 2: case 3:  /* split signs = kase */
                H(scalar_with_signs)(k[i], (unsigned)kase);
                break;
            case 4:                          /* r − 1 everywhere */
                mpz_sub_ui(t, r, 1);
                gt_from_mpz(k[i], t);
                break;
            case 5:                          /* all equal */
                if (i == 0)
                    H(scalar_with_signs)(k[0], 3);
                else
                    memcpy(k[i], k[0], 32);
                break;
            default:                         /* λ ± small, ≥ r, mixed */
                switch (i % 5) {
                case 0: mpz_add_ui(t, l, i % 7); mpz_sub_ui(t, t, 3); break;
                case 1: mpz_add_ui(t, r, i); break;
                case 2: mpz_sub(t, r, l); break;
                case 3: mpz_set_ui(t, 2 + i); break;
                default: mpz_ui_pow_ui(t, 2, 128 + i % 5); break;
                }
                gt_from_mpz(k[i], t);
                break;
            }
        }
        /* some 0/1 scalars too, as a witness has */
        memset(k[11], 0, 32);
        memset(k[12], 0, 32), k[12][0] = 1;
        JAC want, got;
        H(naive)(&want, p, (const uint64_t(*)[4])k, N);
        for (unsigned th = 1; th <= 2; th++) {
            cr_assert_eq(X(g1_msm)(&got, p, k, N, th), 0);
            cr_assert(X(g1_eq)(&got, &want), "MSM != naive (case %d, %u threads)", kase, th);
        }
    }
    /* every point at infinity */
    memset(p, 0, N * sizeof(AFF));
    JAC got;
    cr_assert_eq(X(g1_msm)(&got, p, k, N, 2), 0);
    cr_assert(X(g1_is_inf)(&got), "all-infinity MSM is not infinity");
    mpz_clears(r, l, t, NULL);
    free(p);
    free(k);
}

#undef H
#undef X
#undef AFF
#undef JAC

#endif
