/*
 * test_pairing.c - the pairings of common/bn254_pairing.h and
 * common/bls12381_pairing.h:
 *   - the generated constants (Frobenius gammas, loop counts, hard
 *     exponent) recomputed with GMP from p, r and the curve parameter;
 *   - Fp6/Fp12 laws: inverse, Frobenius as a ring map of order 12, the
 *     cyclotomic squaring against the generic one;
 *   - bilinearity e(aP, bQ) = e(P, Q)^(ab) on random a, b (the power taken
 *     by plain square-and-multiply), non-degeneracy, e(P, Q)^r = 1, the
 *     multi-pairing against the product of single pairings;
 *   - subgroup checks: generators in, r-torsion-free twist points out;
 *   - vectors from an independent implementation (ffjavascript, written by
 *     tests/fixtures/gen_pairing_vectors.mjs into
 *     tests/fixtures/pairing_vectors.json): its GT values e(P, Q) and its
 *     pairing-product checks that hold or fail, on points it chose. The
 *     oracle uses the same Fp12 tower and the same fixed power m of the
 *     reduced pairing (m = 3 on BLS12-381, 2u(6u^2 + 3u + 1) on BN254), so
 *     the GT values compare exactly; the hard part's decomposition into
 *     that m is checked against GMP.
 * Randomness: fixed-seed xorshift.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "bls12381_pairing.h"
#include "bn254_pairing.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(pairing, .timeout = 120);

static uint64_t tp_state = 0x243f6a8885a308d3ULL;

static uint64_t tp_rand64(void)
{
    uint64_t x = tp_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    tp_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* Random scalar below r (4 limbs; r's top limb bounds the draw). */
static void tp_rand_scalar(uint64_t k[4], const uint64_t r[4])
{
    for (;;) {
        for (int i = 0; i < 4; i++)
            k[i] = tp_rand64();
        k[3] &= (1ULL << (64 - __builtin_clzll(r[3]))) - 1;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (k[i] != r[i]) {
                lt = k[i] < r[i];
                break;
            }
        if (lt)
            return;
    }
}

static void limbs_to_mpz(mpz_t z, const uint64_t *l, size_t n)
{
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

/* a*b mod r as 4 limbs. */
static void tp_mulmod(uint64_t out[4], const uint64_t a[4], const uint64_t b[4],
                      const uint64_t r[4])
{
    mpz_t x, y, m;
    mpz_inits(x, y, m, NULL);
    limbs_to_mpz(x, a, 4);
    limbs_to_mpz(y, b, 4);
    limbs_to_mpz(m, r, 4);
    mpz_mul(x, x, y);
    mpz_mod(x, x, m);
    memset(out, 0, 32);
    mpz_export(out, NULL, -1, sizeof(uint64_t), 0, 0, x);
    mpz_clears(x, y, m, NULL);
}

/* One set of tests per curve, written once as a macro over the prefix. */
#define TP_CURVE_TESTS(C, FPL)                                                 \
    /* Fp2 value from Montgomery limbs to two mpz (standard form). */         \
    static void C##_fp2_to_mpz(mpz_t re, mpz_t im, const C##_fp2_t *a)        \
    {                                                                          \
        C##_fp_t s;                                                            \
        C##_fp_from_mont(&s, &a->c0);                                          \
        limbs_to_mpz(re, s.l, FPL);                                            \
        C##_fp_from_mont(&s, &a->c1);                                          \
        limbs_to_mpz(im, s.l, FPL);                                            \
    }                                                                          \
    /* x^e in GMP Fp2 = Fp[u]/(u^2+1), square and multiply. */                \
    static void C##_gmp_fp2_pow(mpz_t re, mpz_t im, const mpz_t bre,          \
                                const mpz_t bim, const mpz_t e, const mpz_t p)\
    {                                                                          \
        mpz_t a, b, t0, t1, t2;                                                \
        mpz_inits(a, b, t0, t1, t2, NULL);                                     \
        mpz_set_ui(a, 1);                                                      \
        mpz_set_ui(b, 0);                                                      \
        for (long i = (long)mpz_sizeinbase(e, 2) - 1; i >= 0; i--) {           \
            mpz_mul(t0, a, a); mpz_mul(t1, b, b); mpz_sub(t0, t0, t1);         \
            mpz_mul(t2, a, b); mpz_mul_2exp(t2, t2, 1);                        \
            mpz_mod(a, t0, p); mpz_mod(b, t2, p);                              \
            if (mpz_tstbit(e, (mp_bitcnt_t)i)) {                               \
                mpz_mul(t0, a, bre); mpz_mul(t1, b, bim); mpz_sub(t0, t0, t1); \
                mpz_mul(t2, a, bim); mpz_addmul(t2, b, bre);                   \
                mpz_mod(a, t0, p); mpz_mod(b, t2, p);                          \
            }                                                                  \
        }                                                                      \
        mpz_set(re, a);                                                        \
        mpz_set(im, b);                                                        \
        mpz_clears(a, b, t0, t1, t2, NULL);                                    \
    }                                                                          \
    /* A "random" Fp12 element: every Fp coordinate from the PRNG. */         \
    static void C##_rand_fp12(C##_fp12_t *a)                                  \
    {                                                                          \
        C##_fp_t *f = (C##_fp_t *)a;                                           \
        for (size_t i = 0; i < sizeof *a / sizeof *f; i++) {                   \
            C##_fp_t t;                                                        \
            for (int j = 0; j < FPL; j++)                                      \
                t.l[j] = tp_rand64();                                          \
            t.l[FPL - 1] &= (1ULL << 60) - 1;                                  \
            while (!C##_fp_is_canonical(t.l))                                  \
                t.l[FPL - 1] >>= 1;                                            \
            f[i] = t;                                                          \
        }                                                                      \
    }                                                                          \
    static C##_g1_affine_t C##_g1_mul(const C##_g1_affine_t *P,               \
                                      const uint64_t k[4])                     \
    {                                                                          \
        C##_g1_jac_t j;                                                        \
        C##_g1_affine_t a;                                                     \
        C##_g1_mul_scalar_affine(&j, P, k, 4);                                 \
        C##_g1_to_affine(&a, &j);                                              \
        return a;                                                              \
    }                                                                          \
    static C##_g2_affine_t C##_g2_mul(const C##_g2_affine_t *Q,               \
                                      const uint64_t k[4])                     \
    {                                                                          \
        C##_g2_jac_t j;                                                        \
        C##_g2_affine_t a;                                                     \
        C##_g2_mul_scalar_affine(&j, Q, k, 4);                                 \
        C##_g2_to_affine(&a, &j);                                              \
        return a;                                                              \
    }                                                                          \
    /* a^k by plain square-and-multiply with the generic Fp12 squaring. */    \
    static void C##_fp12_pow_plain(C##_fp12_t *ret, const C##_fp12_t *a,      \
                                   const uint64_t *k, size_t n)                \
    {                                                                          \
        C##_fp12_t acc;                                                        \
        C##_fp12_set_one(&acc);                                                \
        for (size_t i = n; i-- > 0;)                                           \
            for (int j = 63; j >= 0; j--) {                                    \
                C##_fp12_sqr(&acc, &acc);                                      \
                if ((k[i] >> j) & 1)                                           \
                    C##_fp12_mul(&acc, &acc, a);                               \
            }                                                                  \
        *ret = acc;                                                            \
    }                                                                          \
    Test(pairing, C##_constants_vs_gmp)                                        \
    {                                                                          \
        mpz_t p, r, e, t, re, im, gre, gim;                                    \
        mpz_inits(p, r, e, t, re, im, gre, gim, NULL);                         \
        limbs_to_mpz(p, C##_fp_modulus.l, FPL);                                \
        limbs_to_mpz(r, C##_fr_modulus.l, 4);                                  \
        /* sum_i lambda_i(z) p^i == m (p^4 - p^2 + 1)/r */                      \
        static const int8_t coef[4][C##_HARD_DEG_ + 1] = C##_HARD_COEF_;        \
        mpz_t z, lam, zj, m;                                                   \
        mpz_inits(z, lam, zj, m, NULL);                                        \
        C##_param(z, m);                                                       \
        mpz_set_ui(e, 0);                                                      \
        for (int i = 3; i >= 0; i--) {                                         \
            mpz_set_ui(lam, 0);                                                \
            mpz_set_ui(zj, 1);                                                 \
            for (int j = 0; j <= C##_HARD_DEG_; j++) {                         \
                if (coef[i][j] >= 0)                                           \
                    mpz_addmul_ui(lam, zj, (unsigned long)coef[i][j]);         \
                else                                                           \
                    mpz_submul_ui(lam, zj, (unsigned long)-coef[i][j]);        \
                mpz_mul(zj, zj, z);                                            \
            }                                                                  \
            mpz_mul(e, e, p);                                                  \
            mpz_add(e, e, lam);                                                \
        }                                                                      \
        mpz_pow_ui(t, p, 4);                                                   \
        mpz_add_ui(t, t, 1);                                                   \
        mpz_submul(t, p, p);                                                   \
        cr_assert(mpz_divisible_p(t, r), #C ": r | p^4 - p^2 + 1");            \
        mpz_divexact(t, t, r);                                                 \
        mpz_mul(t, t, m);                                                      \
        cr_assert_eq(mpz_cmp(e, t), 0, #C ": hard part decomposition");        \
        /* |z| and its sign as generated */                                    \
        mpz_abs(zj, z);                                                        \
        cr_assert_eq(mpz_get_ui(zj), C##_PARAM_ABS_);                          \
        cr_assert_eq(mpz_sgn(z) < 0, C##_PARAM_NEG_);                          \
        mpz_clears(z, lam, zj, m, NULL);                                       \
        /* gamma_k = xi^(k(p-1)/6) */                                          \
        mpz_t xr, xi_;                                                         \
        mpz_inits(xr, xi_, NULL);                                              \
        mpz_set_ui(xr, C##_XI_C0);                                             \
        mpz_set_ui(xi_, 1);                                                    \
        for (int k = 1; k <= 5; k++) {                                         \
            mpz_sub_ui(e, p, 1);                                               \
            mpz_mul_ui(e, e, (unsigned long)k);                                \
            mpz_divexact_ui(e, e, 6);                                          \
            C##_gmp_fp2_pow(gre, gim, xr, xi_, e, p);                          \
            C##_fp2_to_mpz(re, im, &C##_fp12_frob_gamma[k - 1]);               \
            cr_assert(mpz_cmp(re, gre) == 0 && mpz_cmp(im, gim) == 0,          \
                      #C ": gamma_%d", k);                                     \
        }                                                                      \
        mpz_clears(p, r, e, t, re, im, gre, gim, xr, xi_, NULL);               \
    }                                                                          \
    Test(pairing, C##_fp12_laws)                                               \
    {                                                                          \
        C##_fp12_t a, b, ab, t, u, one;                                        \
        C##_fp12_set_one(&one);                                                \
        for (int it = 0; it < 4; it++) {                                       \
            C##_rand_fp12(&a);                                                 \
            C##_rand_fp12(&b);                                                 \
            C##_fp12_inv(&t, &a);                                              \
            C##_fp12_mul(&t, &t, &a);                                          \
            cr_assert(C##_fp12_is_one(&t), #C ": a * a^-1");                   \
            C##_fp12_mul(&t, &a, &a);                                          \
            C##_fp12_sqr(&u, &a);                                              \
            cr_assert(C##_fp12_eq(&t, &u), #C ": sqr");                        \
            C##_fp6_t s6, m6;                                                  \
            C##_fp6_sqr(&s6, &a.c0);                                           \
            C##_fp6_mul(&m6, &a.c0, &a.c0);                                    \
            cr_assert(C##_fp6_eq(&s6, &m6), #C ": fp6 sqr");                   \
            C##_fp6_inv(&s6, &a.c1);                                           \
            C##_fp6_mul(&s6, &s6, &a.c1);                                      \
            C##_fp6_t one6;                                                    \
            C##_fp6_set_one(&one6);                                            \
            cr_assert(C##_fp6_eq(&s6, &one6), #C ": fp6 inv");                 \
            /* Frobenius: a ring map; 12 times is the identity; a^p */        \
            C##_fp12_mul(&ab, &a, &b);                                         \
            C##_fp12_frob(&t, &ab);                                            \
            C##_fp12_frob(&u, &a);                                             \
            C##_fp12_t fb;                                                     \
            C##_fp12_frob(&fb, &b);                                            \
            C##_fp12_mul(&u, &u, &fb);                                         \
            cr_assert(C##_fp12_eq(&t, &u), #C ": frob(ab)");                   \
            t = a;                                                             \
            for (int k = 0; k < 12; k++)                                       \
                C##_fp12_frob(&t, &t);                                         \
            cr_assert(C##_fp12_eq(&t, &a), #C ": frob^12");                    \
            C##_fp12_pow_plain(&t, &a, C##_fp_modulus.l, FPL);                 \
            C##_fp12_frob(&u, &a);                                             \
            cr_assert(C##_fp12_eq(&t, &u), #C ": frob == ^p");                 \
            /* cyclotomic squaring after the easy part */                     \
            C##_fp12_inv(&t, &a);                                              \
            C##_fp12_conj(&u, &a);                                             \
            C##_fp12_mul(&t, &u, &t);                                          \
            C##_fp12_frob(&u, &t);                                             \
            C##_fp12_frob(&u, &u);                                             \
            C##_fp12_mul(&t, &u, &t);                                          \
            C##_fp12_sqr(&u, &t);                                              \
            C##_fp12_t c = t;                                                  \
            C##_fp12_cyclo_sqr(&t, &t);                                        \
            cr_assert(C##_fp12_eq(&t, &u), #C ": cyclotomic sqr");             \
            uint64_t k[4];                                                     \
            tp_rand_scalar(k, C##_fr_modulus.l);                               \
            C##_fp12_pow_plain(&t, &c, k, 4);                                  \
            C##_fp12_cyclo_pow(&u, &c, k, 4);                                  \
            cr_assert(C##_fp12_eq(&t, &u), #C ": cyclotomic pow");             \
        }                                                                      \
        (void)one;                                                             \
    }                                                                          \
    Test(pairing, C##_bilinear)                                                \
    {                                                                          \
        const uint64_t *r = C##_fr_modulus.l;                                  \
        C##_fp12_t e1, e2, t;                                                  \
        C##_pairing(&e1, &C##_g1_generator, &C##_g2_generator);                \
        C##_fp12_set_one(&t);                                                  \
        cr_assert(!C##_fp12_eq(&e1, &t), #C ": e(G1, G2) == 1");               \
        C##_fp12_pow_plain(&t, &e1, r, 4);                                     \
        cr_assert(C##_fp12_is_one(&t), #C ": e(G1, G2)^r != 1");               \
        for (int it = 0; it < 3; it++) {                                       \
            uint64_t a[4], b[4], ab[4];                                        \
            tp_rand_scalar(a, r);                                              \
            tp_rand_scalar(b, r);                                              \
            tp_mulmod(ab, a, b, r);                                            \
            C##_g1_affine_t P = C##_g1_mul(&C##_g1_generator, a);              \
            C##_g2_affine_t Q = C##_g2_mul(&C##_g2_generator, b);              \
            C##_pairing(&e2, &P, &Q);                                          \
            C##_fp12_pow_plain(&t, &e1, ab, 4);                                \
            cr_assert(C##_fp12_eq(&e2, &t), #C ": e(aP, bQ) != e(P, Q)^ab");   \
            /* multi-pairing: e(aP, bQ) e(-abP, Q) = 1, and not with +abP */  \
            C##_g1_affine_t Pab = C##_g1_mul(&C##_g1_generator, ab);           \
            C##_g1_affine_t Ps[2] = {P, Pab};                                  \
            C##_g2_affine_t Qs[2] = {Q, C##_g2_generator};                     \
            cr_assert(!C##_pairing_is_one(Ps, Qs, 2), #C ": product != 1");    \
            C##_g1_affine_neg(&Ps[1], &Ps[1]);                                 \
            cr_assert(C##_pairing_is_one(Ps, Qs, 2), #C ": product == 1");     \
        }                                                                      \
    }                                                                          \
    Test(pairing, C##_multi_vs_single)                                         \
    {                                                                          \
        enum { N = 10 }; /* more than one accumulator batch of 8 */           \
        const uint64_t *r = C##_fr_modulus.l;                                  \
        C##_g1_affine_t P[N];                                                  \
        C##_g2_affine_t Q[N];                                                  \
        C##_fp12_t prod, e, f;                                                 \
        C##_fp12_set_one(&prod);                                               \
        for (int i = 0; i < N; i++) {                                          \
            uint64_t a[4], b[4];                                               \
            tp_rand_scalar(a, r);                                              \
            tp_rand_scalar(b, r);                                              \
            P[i] = C##_g1_mul(&C##_g1_generator, a);                           \
            Q[i] = C##_g2_mul(&C##_g2_generator, b);                           \
            if (i == 3)                                                        \
                C##_g1_affine_set_inf(&P[i]);                                  \
            if (i == 5)                                                        \
                C##_g2_affine_set_inf(&Q[i]);                                  \
            C##_pairing(&e, &P[i], &Q[i]);                                     \
            C##_fp12_mul(&prod, &prod, &e);                                    \
        }                                                                      \
        C##_miller_loop(&f, P, Q, N);                                          \
        C##_final_exp(&f, &f);                                                 \
        cr_assert(C##_fp12_eq(&f, &prod), #C ": multi-pairing");               \
    }

#define TP_VEC_TESTS(C, FPL, JNAME)                                             \
    static void C##_fp_dec(C##_fp_t *ret, json_t *j)                          \
    {                                                                          \
        mpz_t z;                                                               \
        cr_assert(json_is_string(j), #C ": vector entry not a string");       \
        cr_assert_eq(mpz_init_set_str(z, json_string_value(j), 10), 0);        \
        C##_fp_t s;                                                            \
        memset(&s, 0, sizeof s);                                               \
        cr_assert(mpz_sizeinbase(z, 2) <= 64 * FPL);                           \
        mpz_export(s.l, NULL, -1, sizeof(uint64_t), 0, 0, z);                  \
        cr_assert(C##_fp_is_canonical(s.l));                                   \
        C##_fp_to_mont(ret, &s);                                               \
        mpz_clear(z);                                                          \
    }                                                                          \
    static C##_g1_affine_t C##_g1_dec(json_t *j)                              \
    {                                                                          \
        C##_g1_affine_t P;                                                     \
        C##_fp_dec(&P.x, json_array_get(j, 0));                                \
        C##_fp_dec(&P.y, json_array_get(j, 1));                                \
        cr_assert(C##_g1_in_subgroup(&P), #C ": vector G1 point");            \
        return P;                                                              \
    }                                                                          \
    static C##_g2_affine_t C##_g2_dec(json_t *j)                              \
    {                                                                          \
        C##_g2_affine_t Q;                                                     \
        C##_fp_dec(&Q.x.c0, json_array_get(json_array_get(j, 0), 0));         \
        C##_fp_dec(&Q.x.c1, json_array_get(json_array_get(j, 0), 1));         \
        C##_fp_dec(&Q.y.c0, json_array_get(json_array_get(j, 1), 0));         \
        C##_fp_dec(&Q.y.c1, json_array_get(json_array_get(j, 1), 1));         \
        cr_assert(C##_g2_in_subgroup(&Q), #C ": vector G2 point");            \
        return Q;                                                              \
    }                                                                          \
    static void C##_vectors(json_t *cv)         \
    {                                                                          \
        json_t *pairs = json_object_get(cv, "pairs");                          \
        json_t *checks = json_object_get(cv, "checks");                        \
        cr_assert(json_array_size(pairs) >= 5 && json_array_size(checks) >= 9);\
        for (size_t i = 0; i < json_array_size(pairs); i++) {                  \
            json_t *v = json_array_get(pairs, i);                              \
            C##_g1_affine_t P = C##_g1_dec(json_object_get(v, "g1"));          \
            C##_g2_affine_t Q = C##_g2_dec(json_object_get(v, "g2"));          \
            C##_fp12_t want, got;                                              \
            C##_fp_t *w = (C##_fp_t *)&want;                                   \
            json_t *gt = json_object_get(v, "gt");                             \
            cr_assert_eq(json_array_size(gt), 12);                             \
            for (int c = 0; c < 12; c++)                                       \
                C##_fp_dec(&w[c], json_array_get(gt, (size_t)c));              \
            C##_pairing(&got, &P, &Q);                                         \
            cr_assert(C##_fp12_eq(&got, &want), #C ": GT vector %zu", i);      \
        }                                                                      \
        for (size_t i = 0; i < json_array_size(checks); i++) {                 \
            json_t *v = json_array_get(checks, i);                             \
            json_t *g1 = json_object_get(v, "g1"), *g2 = json_object_get(v, "g2");\
            size_t n = json_array_size(g1);                                    \
            cr_assert(n >= 2 && n <= 4 && json_array_size(g2) == n);           \
            C##_g1_affine_t P[4];                                              \
            C##_g2_affine_t Q[4];                                              \
            for (size_t j = 0; j < n; j++) {                                   \
                P[j] = C##_g1_dec(json_array_get(g1, j));                      \
                Q[j] = C##_g2_dec(json_array_get(g2, j));                      \
            }                                                                  \
            int want = json_is_true(json_object_get(v, "holds"));              \
            cr_assert_eq(C##_pairing_is_one(P, Q, n), want,                    \
                         #C ": check %zu: oracle says %d", i, want);           \
        }                                                                      \
    }

#define bn254_HARD_DEG_ BN254_HARD_DEG
#define bls12381_HARD_DEG_ BLS12381_HARD_DEG
#define bn254_HARD_COEF_ BN254_HARD_COEF
#define bls12381_HARD_COEF_ BLS12381_HARD_COEF
#define bn254_PARAM_ABS_ BN254_PARAM_ABS
#define bls12381_PARAM_ABS_ BLS12381_PARAM_ABS
#define bn254_PARAM_NEG_ BN254_PARAM_NEG
#define bls12381_PARAM_NEG_ BLS12381_PARAM_NEG

/* The curve parameter z and the power m of the reduced pairing that
 * final_exp computes: BN254 u = 4965661367192848881, m = 2u(6u^2+3u+1);
 * BLS12-381 x = -0xd201000000010000, m = 3. */
static void bn254_param(mpz_t z, mpz_t m)
{
    mpz_set_ui(z, 4965661367192848881UL);
    mpz_mul_ui(m, z, 6);
    mpz_add_ui(m, m, 3);
    mpz_mul(m, m, z);
    mpz_add_ui(m, m, 1);
    mpz_mul(m, m, z);
    mpz_mul_ui(m, m, 2);
}

static void bls12381_param(mpz_t z, mpz_t m)
{
    mpz_set_ui(z, 0xd201000000010000UL);
    mpz_neg(z, z);
    mpz_set_ui(m, 3);
}
#define bn254_XI_C0 BN254_XI_C0
#define bls12381_XI_C0 BLS12381_XI_C0

TP_CURVE_TESTS(bn254, 4)
TP_CURVE_TESTS(bls12381, 6)

/* Subgroup tests: the fast ones (endomorphisms on BLS12-381) against r P = O
 * on points in the groups (random multiples of the generators) and on
 * points of the curves found by square roots (x = 1, 2, ...: almost surely
 * outside, as the cofactors are large; the reference says which). */
#define TP_SUBGROUP_TESTS(C, FPL)                                              \
    static void C##_fp2_pow_mpz(C##_fp2_t *ret, const C##_fp2_t *a, mpz_t e)  \
    {                                                                          \
        C##_fp2_t acc;                                                         \
        C##_fp2_set_one(&acc);                                                 \
        for (long i = (long)mpz_sizeinbase(e, 2) - 1; i >= 0; i--) {           \
            C##_fp2_sqr(&acc, &acc);                                           \
            if (mpz_tstbit(e, (mp_bitcnt_t)i))                                 \
                C##_fp2_mul(&acc, &acc, a);                                    \
        }                                                                      \
        *ret = acc;                                                            \
    }                                                                          \
    /* square root in Fp2 for p = 3 mod 4 (Adj, Rodriguez-Henriquez,          \
     * ePrint 2012/685, algorithm 9); 0 if a is not a square */               \
    static int C##_fp2_sqrt(C##_fp2_t *ret, const C##_fp2_t *a, mpz_t p)      \
    {                                                                          \
        mpz_t e;                                                               \
        mpz_init(e);                                                           \
        C##_fp2_t a1, al, x0, t, one, m1;                                      \
        mpz_sub_ui(e, p, 3);                                                   \
        mpz_fdiv_q_2exp(e, e, 2);                                              \
        C##_fp2_pow_mpz(&a1, a, e);                                            \
        C##_fp2_sqr(&al, &a1);                                                 \
        C##_fp2_mul(&al, &al, a);                                              \
        C##_fp2_mul(&x0, &a1, a);                                              \
        C##_fp2_set_one(&one);                                                 \
        C##_fp2_neg(&m1, &one);                                                \
        if (C##_fp2_eq(&al, &m1)) {                                            \
            C##_fp2_t i_;                                                      \
            C##_fp2_set_zero(&i_);                                             \
            i_.c1 = one.c0;                                                    \
            C##_fp2_mul(&t, &i_, &x0);                                         \
        } else {                                                               \
            mpz_sub_ui(e, p, 1);                                               \
            mpz_fdiv_q_2exp(e, e, 1);                                          \
            C##_fp2_add(&t, &one, &al);                                        \
            C##_fp2_pow_mpz(&t, &t, e);                                        \
            C##_fp2_mul(&t, &t, &x0);                                          \
        }                                                                      \
        mpz_clear(e);                                                          \
        C##_fp2_sqr(&a1, &t);                                                  \
        *ret = t;                                                              \
        return C##_fp2_eq(&a1, a);                                             \
    }                                                                          \
    Test(pairing, C##_subgroup_checks)                                         \
    {                                                                          \
        mpz_t p, e;                                                            \
        mpz_inits(p, e, NULL);                                                 \
        limbs_to_mpz(p, C##_fp_modulus.l, FPL);                                \
        for (int i = 0; i < 3; i++) {                                          \
            uint64_t k[4];                                                     \
            tp_rand_scalar(k, C##_fr_modulus.l);                               \
            C##_g1_affine_t P = C##_g1_mul(&C##_g1_generator, k);              \
            C##_g2_affine_t Q = C##_g2_mul(&C##_g2_generator, k);              \
            cr_assert(C##_g1_in_subgroup(&P) && C##_g1_in_subgroup_slow(&P));  \
            cr_assert(C##_g2_in_subgroup(&Q) && C##_g2_in_subgroup_slow(&Q));  \
        }                                                                      \
        int out1 = 0, out2 = 0;                                                \
        for (uint64_t xv = 1; xv < 40; xv++) {                                 \
            C##_g1_affine_t P;                                                 \
            C##_g2_affine_t Q;                                                 \
            C##_fp_t rhs, y;                                                   \
            C##_fp_from_u64(&P.x, xv);                                         \
            C##_fp_sqr(&rhs, &P.x);                                            \
            C##_fp_mul(&rhs, &rhs, &P.x);                                      \
            C##_fp_add(&rhs, &rhs, &C##_g1_b);                                 \
            mpz_add_ui(e, p, 1);                                               \
            mpz_fdiv_q_2exp(e, e, 2);                                          \
            uint64_t el[6] = {0};                                              \
            mpz_export(el, NULL, -1, sizeof(uint64_t), 0, 0, e);               \
            C##_fp_pow(&y, &rhs, el, FPL);                                     \
            P.y = y;                                                           \
            if (C##_g1_affine_is_on_curve(&P)) {                               \
                int slow = C##_g1_in_subgroup_slow(&P);                        \
                cr_assert_eq(C##_g1_in_subgroup(&P), slow, #C ": G1 x=%lu",    \
                             (unsigned long)xv);                               \
                out1 += !slow;                                                 \
            }                                                                  \
            C##_fp2_t x2, r2;                                                  \
            C##_fp2_set_zero(&x2);                                             \
            x2.c0 = P.x;                                                       \
            x2.c1 = C##_fp_mont_one;                                           \
            C##_fp2_sqr(&r2, &x2);                                             \
            C##_fp2_mul(&r2, &r2, &x2);                                        \
            C##_fp2_add(&r2, &r2, &C##_g2_b);                                  \
            if (C##_fp2_sqrt(&Q.y, &r2, p)) {                                  \
                Q.x = x2;                                                      \
                cr_assert(C##_g2_affine_is_on_curve(&Q));                      \
                int slow = C##_g2_in_subgroup_slow(&Q);                        \
                cr_assert_eq(C##_g2_in_subgroup(&Q), slow, #C ": G2 x=%lu+u",  \
                             (unsigned long)xv);                               \
                out2 += !slow;                                                 \
            }                                                                  \
        }                                                                      \
        cr_assert(out2 >= 5, #C ": too few twist points outside G2 (%d)", out2);\
        cr_assert(out1 >= (C##_G1_COFACTOR_IS_ONE ? 0 : 5), #C ": G1 (%d)", out1);\
        if (C##_G1_COFACTOR_IS_ONE)                                            \
            cr_assert_eq(out1, 0, #C ": a curve point outside G1");            \
        mpz_clears(p, e, NULL);                                                \
    }

#define bn254_G1_COFACTOR_IS_ONE 1
#define bls12381_G1_COFACTOR_IS_ONE 0
TP_SUBGROUP_TESTS(bn254, 4)
TP_SUBGROUP_TESTS(bls12381, 6)

TP_VEC_TESTS(bn254, 4, "bn128")
TP_VEC_TESTS(bls12381, 6, "bls12381")

Test(pairing, vectors_from_ffjavascript)
{
    json_error_t err;
    json_t *doc = json_load_file("tests/fixtures/pairing_vectors.json", 0, &err);
    cr_assert(doc, "tests/fixtures/pairing_vectors.json: %s", err.text);
    json_t *curves = json_object_get(doc, "curves");
    bn254_vectors(json_object_get(curves, "bn128"));
    bls12381_vectors(json_object_get(curves, "bls12381"));
    json_decref(doc);
}


Test(pairing, loop_constants)
{
    /* BN254: 6u + 2 with u = 4965661367192848881; BLS12-381: |x| with
     * x = -0xd201000000010000 */
    unsigned __int128 u = 4965661367192848881ULL;
    unsigned __int128 bn = 6 * u + 2;
    cr_assert_eq((uint64_t)bn, BN254_ATE_LOOP_LO);
    cr_assert_eq((uint64_t)(bn >> 64), BN254_ATE_LOOP_HI);
    cr_assert_eq(BLS12381_ATE_LOOP_LO, 0xd201000000010000ULL);
    cr_assert_eq(BLS12381_ATE_LOOP_HI, 0);
}
