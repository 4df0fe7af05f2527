/*
 * test_keygen.c — the pieces of `slotprove keygen` (run/keygen*.c,
 * common/fixed_base*), each against a computation done another way:
 *
 *   keygen_lagrange   L_i(τ) vs Π_{j≠i} (τ − ω^j)/(ω^i − ω^j) in GMP, with
 *                     ω = 5^((r−1)/n) from GMP; n = 2 .. 64, whole range and
 *                     an offset sub-range
 *   keygen_h_bases    H_i vs L^{(2n)}_{2i+1}(τ)/δ in GMP (the odd-index
 *                     Lagrange bases of the 2n domain, snarkjs's H layout),
 *                     n = 2 .. 32; and with the shift 25 that snarkjs uses at
 *                     the 2-adicity: Σ h_i·H_i = H(τ)·Z(τ)/δ for a random H of
 *                     degree < n and h_i = H(x_i)·Z(x_i) (GMP)
 *   keygen_circuit    every generated row satisfies (A·w)·(B·w) = C·w; the
 *                     term counts match keygen_shape; most values are 0 or 1
 *                     and many are full-size; the same seed gives the same
 *                     circuit
 *   keygen_shape      limits: N = 0, the largest N for the 2^28 domain and
 *                     one past it; counts vs a naive loop over the kinds
 *   keygen_zkey       a whole small key through the readers: zkey_open and
 *                     zkey_check_coefs accept it, the header counts match
 *                     the shape, the last K+1 coefficient entries are the
 *                     public-input rows (A, constraint N+s, signal s, value
 *                     R² mod r as snarkjs writes 1), every point is on its
 *                     curve, and wtns_open/wtns_check_key accept the witness
 *   fixed_base        X_fb_mul vs _mul_scalar_affine (double-and-add) for the
 *                     four groups, windows 1, 3, 8, 13, scalars 0, 1, 2,
 *                     r − 1, 2^256 − 1 and random; X_fb_mul_batch vs X_fb_mul
 *                     for n = 0, 1, 1500 (past one chunk) with zeros
 * Randomness: fixed-seed xorshift64*.
 */
#ifndef KT_C /* ====================== first pass: common part and tests */

#include <criterion/criterion.h>
#include <errno.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "fixed_base.h"
#include "keygen_bls12381.h"
#include "keygen_bn254.h"
#include "keygen_circuit.h"
#include "keygen_types.h"
#include "wtns.h"
#include "zkey.h"
#include "wtns_write.h"
#include "zkey_write.h"
#include "keygen_curve.h"
#include "ntt.h"

#define KT_CAT2(a, b) a##b
#define KT_CAT(a, b) KT_CAT2(a, b)

static uint64_t kt_state = 0x1234567887654321ULL;

static uint64_t kt_rand64(void)
{
    uint64_t x = kt_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    kt_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void kt_mpz_from_limbs(mpz_t z, const uint64_t l[4])
{
    mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, l);
}

static void kt_limbs_from_mpz(uint64_t l[4], const mpz_t z)
{
    memset(l, 0, 32);
    mpz_export(l, NULL, -1, sizeof(uint64_t), 0, 0, z);
}

/* Scalar-field moduli as independent text (not the headers' limbs). */
#define KT_BN254_R "21888242871839275222246405745257275088548364400416034343698204186575808495617"
#define KT_BLS12381_R "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"

/* root = 5^((r−1)/m) mod r. */
static void kt_root(mpz_t root, const mpz_t r, unsigned long m)
{
    mpz_t e, five;
    mpz_inits(e, five, NULL);
    mpz_sub_ui(e, r, 1);
    mpz_divexact_ui(e, e, m);
    mpz_set_ui(five, 5);
    mpz_powm(root, five, e, r);
    mpz_clears(e, five, NULL);
}

/* out = Π_{j≠i} (t − p_j)/(p_i − p_j) mod r over points p[0..m). */
static void kt_lagrange_naive(mpz_t out, const mpz_t t, mpz_t *p, unsigned m, unsigned i,
                              const mpz_t r)
{
    mpz_t num, den, d;
    mpz_inits(num, den, d, NULL);
    mpz_set_ui(num, 1);
    mpz_set_ui(den, 1);
    for (unsigned j = 0; j < m; j++) {
        if (j == i)
            continue;
        mpz_sub(d, t, p[j]);
        mpz_mul(num, num, d);
        mpz_mod(num, num, r);
        mpz_sub(d, p[i], p[j]);
        mpz_mul(den, den, d);
        mpz_mod(den, den, r);
    }
    mpz_invert(den, den, r);
    mpz_mul(out, num, den);
    mpz_mod(out, out, r);
    mpz_clears(num, den, d, NULL);
}

/* ------------------------------------------------ per-curve instances */

#define KT_C bn254
#define KT_R KT_BN254_R
#include "test_keygen.c"
#undef KT_C
#undef KT_R

#define KT_C bls12381
#define KT_R KT_BLS12381_R
#include "test_keygen.c"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(fixed_base, .timeout = 300);
TestSuite(keygen_circuit, .timeout = 300);
TestSuite(keygen_h_bases, .timeout = 300);
TestSuite(keygen_lagrange, .timeout = 300);
TestSuite(keygen_shape, .timeout = 300);
TestSuite(keygen_zkey, .timeout = 300);
#undef KT_C
#undef KT_R

/* --------------------------------------------------------------- tests */

Test(keygen_lagrange, bn254, .timeout = 60) { bn254_kt_lagrange(); }
Test(keygen_lagrange, bls12381, .timeout = 60) { bls12381_kt_lagrange(); }
Test(keygen_h_bases, bn254, .timeout = 60) { bn254_kt_h_bases(); }
Test(keygen_h_bases, bls12381, .timeout = 60) { bls12381_kt_h_bases(); }
Test(keygen_h_bases, coset_25_bn254, .timeout = 60) { bn254_kt_h_coset(); }
Test(keygen_h_bases, coset_25_bls12381, .timeout = 60) { bls12381_kt_h_coset(); }
Test(keygen_circuit, bn254, .timeout = 60) { bn254_kt_circuit(); }
Test(keygen_circuit, bls12381, .timeout = 60) { bls12381_kt_circuit(); }

Test(keygen_shape, limits)
{
    struct keygen_shape s;
    struct sp_err e;
    uint64_t max = (uint64_t)1 << KEYGEN_MAX_LOG_DOMAIN;
    cr_assert(keygen_shape(&s, 0, 2, &e) < 0, "N = 0 accepted");
    cr_assert(strstr(e.msg, "at least 1"), "message: %s", e.msg);
    cr_assert(keygen_shape(&s, max - 3, 2, &e) == 0, "largest N refused: %s", e.msg);
    cr_assert_eq(s.domain_size, (uint32_t)max);
    cr_assert_eq(s.log_domain, KEYGEN_MAX_LOG_DOMAIN);
    cr_assert(keygen_shape(&s, max - 2, 2, &e) < 0, "N one past the limit accepted");
    cr_assert(strstr(e.msg, "2^28"), "message: %s", e.msg);
    cr_assert(keygen_shape(&s, 1, max - 2, &e) == 0, "largest K refused: %s", e.msg);
    cr_assert(keygen_shape(&s, 1, max - 1, &e) < 0, "K one past the limit accepted");
    /* domain: smallest power of two >= N + K + 1, at least 2 */
    cr_assert(keygen_shape(&s, 1, 0, &e) == 0);
    cr_assert_eq(s.domain_size, 2);
    cr_assert(keygen_shape(&s, 65533, 2, &e) == 0);
    cr_assert_eq(s.domain_size, 65536);
    cr_assert(keygen_shape(&s, 65534, 2, &e) == 0);
    cr_assert_eq(s.domain_size, 131072);
    /* counts vs a naive walk over the kinds */
    for (uint64_t n = 1; n < 100; n += 7) {
        uint64_t na = 0, nb = 0, nc = 0;
        for (uint64_t i = 0; i < n; i++) {
            na += keygen_terms(keygen_kind(i), 0);
            nb += keygen_terms(keygen_kind(i), 1);
            nc += keygen_terms(keygen_kind(i), 2);
        }
        cr_assert(keygen_shape(&s, n, 5, &e) == 0);
        cr_assert(s.n_a == na && s.n_b == nb && s.n_c == nc, "counts at N = %llu",
                  (unsigned long long)n);
        cr_assert_eq(s.n_coefs, na + nb + 6);
        cr_assert_eq(s.n_vars, 1 + 5 + n);
    }
    /* --vars: from 1 + K + 16 (or 1 + K + N when N < 16) to 1 + K + N */
    cr_assert(keygen_shape(&s, 1000, 5, &e) == 0);
    cr_assert(keygen_shape_vars(&s, 1 + 5 + 16, &e) == 0, "smallest --vars refused: %s", e.msg);
    cr_assert_eq(s.n_vars, 22);
    cr_assert_eq(s.domain_size, 1024, "--vars changed the domain");
    cr_assert(keygen_shape(&s, 1000, 5, &e) == 0);
    cr_assert(keygen_shape_vars(&s, 1 + 5 + 15, &e) < 0, "--vars one below the limit accepted");
    cr_assert(strstr(e.msg, "--vars 21: want 22..1006"), "message: %s", e.msg);
    cr_assert(keygen_shape_vars(&s, 1006, &e) == 0, "largest --vars refused: %s", e.msg);
    cr_assert(keygen_shape_vars(&s, 1007, &e) < 0, "--vars one past the limit accepted");
    cr_assert(keygen_shape(&s, 7, 0, &e) == 0);
    cr_assert(keygen_shape_vars(&s, 8, &e) == 0 && keygen_shape_vars(&s, 7, &e) < 0,
              "N < 16: --vars must be 1 + K + N");
}


/* keygen_zkey: one small key per curve, read back through the readers. */
static void kt_zkey(enum curve_id curve, int (*run)(struct keygen_job *, struct sp_err *),
                    const uint64_t r2[4], int (*g1_ok)(const uint8_t *), int (*g2_ok)(const uint8_t *))
{
    struct keygen_progress prog = { .quiet = 1 };
    struct keygen_job j = { .curve = curve, .seed = 3, .seeded = 1, .nthreads = 2,
                            .progress = &prog, .zkey_path = "k.zkey", .wtns_path = "w.wtns" };
    struct sp_err e;
    cr_assert(keygen_shape(&j.shape, 203, 5, &e) == 0);
    const struct keygen_shape *s = &j.shape;
    struct zkey_layout l;
    zkey_layout(&l, curve, s->n_vars, s->n_public, s->domain_size, s->n_coefs);
    j.zkey_fd = memfd_create("k.zkey", 0);
    j.wtns_fd = memfd_create("w.wtns", 0);
    cr_assert(j.zkey_fd >= 0 && j.wtns_fd >= 0);
    cr_assert(ftruncate(j.zkey_fd, (off_t)l.file_size) == 0);
    cr_assert(run(&j, &e) == 0, "keygen: %s", e.msg);
    struct zkey zk;
    cr_assert(zkey_open(&zk, j.zkey_fd, "k.zkey", &e) == 0, "zkey_open: %s", e.msg);
    cr_assert(zkey_check_coefs(&zk, &e) == 0, "zkey_check_coefs: %s", e.msg);
    cr_assert_eq(zk.map_len, l.file_size);
    cr_assert(zk.curve == curve && zk.n_vars == s->n_vars && zk.n_public == s->n_public &&
              zk.domain_size == s->domain_size && zk.n_coefs == s->n_coefs);
    cr_assert(!zk.has_contributions);
    for (uint32_t k = 0; k <= s->n_public; k++) {
        const struct zkey_coef *c = &zk.coefs[zk.n_coefs - 1 - s->n_public + k];
        cr_assert(c->matrix == 0 && c->constraint == s->n_constraints + k && c->signal == k,
                  "public-input row %u: matrix %u, constraint %u, signal %u", k, c->matrix,
                  c->constraint, c->signal);
        cr_assert(memcmp(c->value, r2, 32) == 0, "public-input row %u: value is not R^2 mod r", k);
    }
    size_t g1 = zk.ci->g1_bytes, g2 = zk.ci->g2_bytes;
    const uint8_t *hdr[] = { zk.alpha1, zk.beta1, zk.delta1 };
    for (int i = 0; i < 3; i++)
        cr_assert(g1_ok(hdr[i]), "header G1 point %d not on the curve", i);
    cr_assert(g2_ok(zk.beta2) && g2_ok(zk.gamma2) && g2_ok(zk.delta2));
    for (uint32_t i = 0; i < s->n_vars; i++) {
        cr_assert(g1_ok(zk.a + i * g1) && g1_ok(zk.b1 + i * g1) && g2_ok(zk.b2 + i * g2),
                  "A/B1/B2 point %u not on the curve", i);
        if (i < s->n_vars - s->n_public - 1)
            cr_assert(g1_ok(zk.c + i * g1), "C point %u not on the curve", i);
    }
    for (uint32_t i = 0; i < s->domain_size; i++)
        cr_assert(g1_ok(zk.h + i * g1), "H point %u not on the curve", i);
    struct wtns w;
    cr_assert(wtns_open(&w, j.wtns_fd, "w.wtns", &e) == 0, "wtns_open: %s", e.msg);
    cr_assert(wtns_check_key(&w, &zk, &e) == 0, "%s", e.msg);
    uint8_t one[32];
    cr_assert(wtns_read(&w, j.wtns_fd, one, 0, 1, &e) == 0);
    cr_assert(one[0] == 1 && memcmp(one + 1, (uint8_t[31]){ 0 }, 31) == 0, "witness[0] is not 1");
    zkey_close(&zk);
    close(j.zkey_fd);
    close(j.wtns_fd);
    free(j.vk_json);
    free(j.public_json);
}

#define KT_ON_CURVE(G)                                                              \
    static int kt_on_##G(const uint8_t *p)                                          \
    {                                                                               \
        G##_affine_t a;                                                             \
        memcpy(&a, p, sizeof(a));                                                   \
        return G##_affine_is_on_curve(&a);                                          \
    }
KT_ON_CURVE(bn254_g1)
KT_ON_CURVE(bn254_g2)
KT_ON_CURVE(bls12381_g1)
KT_ON_CURVE(bls12381_g2)

Test(keygen_zkey, bn254, .timeout = 60)
{
    kt_zkey(CURVE_BN254, keygen_bn254, bn254_fr_r2.l, kt_on_bn254_g1, kt_on_bn254_g2);
}
Test(keygen_zkey, bls12381, .timeout = 60)
{
    kt_zkey(CURVE_BLS12381, keygen_bls12381, bls12381_fr_r2.l, kt_on_bls12381_g1,
            kt_on_bls12381_g2);
}

/* fixed_base: one test per group. */
#define KT_FB_TEST(G, FR)                                                          \
    Test(fixed_base, G, .timeout = 120)                                            \
    {                                                                              \
        static const unsigned windows[] = { 1, 3, 8, 13 };                         \
        G##_jac_t want, got, pj;                                                   \
        G##_affine_t P;                                                            \
        uint64_t k0[4] = { 0x1234567, 0, 0, 0 };                                   \
        G##_mul_scalar_affine(&pj, &G##_generator, k0, 4); /* P ≠ generator */     \
        G##_to_affine(&P, &pj);                                                    \
        uint64_t ks[9][4] = { { 0 }, { 1 }, { 2 } };                               \
        memcpy(ks[3], FR##_modulus.l, 32);                                         \
        ks[3][0] -= 1;                                                             \
        memset(ks[4], 0xff, 32);                                                   \
        for (int i = 5; i < 9; i++)                                                \
            for (int l = 0; l < 4; l++)                                            \
                ks[i][l] = kt_rand64();                                            \
        for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {        \
            struct G##_fb_table t;                                                 \
            cr_assert(G##_fb_init(&t, &P, windows[w], 2) == 0);                    \
            for (int i = 0; i < 9; i++) {                                          \
                G##_mul_scalar_affine(&want, &P, ks[i], 4);                        \
                G##_fb_mul(&got, &t, ks[i]);                                       \
                cr_assert(G##_eq(&got, &want), #G ": window %u, scalar %d",         \
                          windows[w], i);                                          \
            }                                                                      \
            G##_fb_free(&t);                                                       \
        }                                                                          \
        cr_assert(G##_fb_init(&(struct G##_fb_table){ 0 }, &P, 0, 1) == -EINVAL);  \
        cr_assert(G##_fb_init(&(struct G##_fb_table){ 0 }, &P, 17, 1) == -EINVAL); \
        struct G##_fb_table t;                                                     \
        cr_assert(G##_fb_init(&t, &P, G##_fb_window(1500), 0) == 0);               \
        size_t n = 1500;                                                           \
        uint64_t(*k)[4] = malloc(n * sizeof(*k));                                  \
        G##_affine_t *out = malloc(n * sizeof(*out));                              \
        cr_assert(k && out);                                                       \
        for (size_t i = 0; i < n; i++)                                             \
            for (int l = 0; l < 4; l++)                                            \
                k[i][l] = i % 5 == 0 ? 0 : kt_rand64() >> (l == 3 ? 2 : 0);       \
        cr_assert(G##_fb_mul_batch(out, &t, (const uint64_t(*)[4])k, 0, 0) == 0);  \
        cr_assert(G##_fb_mul_batch(out, &t, (const uint64_t(*)[4])k, 1, 1) == 0);  \
        G##_fb_mul(&want, &t, k[0]);                                               \
        G##_from_affine(&got, &out[0]);                                            \
        cr_assert(G##_eq(&got, &want));                                            \
        cr_assert(G##_fb_mul_batch(out, &t, (const uint64_t(*)[4])k, n, 0) == 0);  \
        for (size_t i = 0; i < n; i++) {                                           \
            G##_fb_mul(&want, &t, k[i]);                                           \
            G##_from_affine(&got, &out[i]);                                        \
            cr_assert(G##_eq(&got, &want), #G ": batch entry %zu", i);             \
            cr_assert(G##_affine_is_on_curve(&out[i]));                            \
        }                                                                          \
        G##_fb_free(&t);                                                           \
        /* Accumulator = ±table entry in the batch: with window 1 the last      \
         * entry is 2^255·P; k = 2^256 − r leaves (2^255 − r)·P = 2^255·P before \
         * it (a doubling), k = c·r ≥ 2^255 leaves −2^255·P (a cancellation). */ \
        cr_assert(G##_fb_init(&t, &P, 1, 0) == 0);                                 \
        uint64_t carry = 1;                                                        \
        for (int l = 0; l < 4; l++) { /* 2^256 − r = ~r + 1 */                     \
            unsigned __int128 v = (unsigned __int128)~FR##_modulus.l[l] + carry;   \
            k[0][l] = (uint64_t)v;                                                 \
            carry = (uint64_t)(v >> 64);                                           \
        }                                                                          \
        for (uint64_t cm = 1; cm < 16; cm++) { /* smallest c with c·r ≥ 2^255 */  \
            unsigned __int128 v = 0;                                               \
            for (int l = 0; l < 4; l++) {                                          \
                v = (unsigned __int128)FR##_modulus.l[l] * cm + (uint64_t)(v >> 64); \
                k[1][l] = (uint64_t)v;                                             \
            }                                                                      \
            if (k[1][3] >> 63)                                                     \
                break;                                                             \
        }                                                                          \
        memcpy(k[2], k[0], 32);                                                    \
        memset(k[3], 0, 32);                                                       \
        cr_assert(G##_fb_mul_batch(out, &t, (const uint64_t(*)[4])k, 4, 1) == 0);  \
        for (size_t i = 0; i < 4; i++) {                                           \
            G##_mul_scalar_affine(&want, &P, k[i], 4);                             \
            G##_from_affine(&got, &out[i]);                                        \
            cr_assert(G##_eq(&got, &want), #G ": special scalar %zu", i);          \
        }                                                                          \
        cr_assert(G##_affine_is_inf(&out[1]), #G ": c·r·P is not infinity");       \
        free(k);                                                                   \
        free(out);                                                                 \
        G##_fb_free(&t);                                                           \
    }
KT_FB_TEST(bn254_g1, bn254_fr)
KT_FB_TEST(bn254_g2, bn254_fr)
KT_FB_TEST(bls12381_g1, bls12381_fr)
KT_FB_TEST(bls12381_g2, bls12381_fr)

#else /* ================================= second pass: one curve's helpers */

#define KFR KT_CAT(KT_C, _fr)
#define KF(name) KT_CAT(KFR, _##name)
#define KTT KT_CAT(KFR, _t)
#define KG(name) KT_CAT(keygen_, KT_CAT(KT_C, _##name))
#define KH(name) KT_CAT(KT_C, _kt_##name)
#define KQAP struct KT_CAT(keygen_, KT_CAT(KT_C, _qap))
#define KTERM struct KT_CAT(keygen_, KT_CAT(KT_C, _term))

/* A random element (Montgomery form) and its standard-form value in z. */
static void KH(rand)(KTT *x, mpz_t z, const mpz_t r)
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++)
        l[i] = kt_rand64();
    kt_mpz_from_limbs(z, l);
    mpz_mod(z, z, r);
    kt_limbs_from_mpz(x->l, z);
    KF(to_mont)(x, x);
}

static void KH(to_mpz)(mpz_t z, const KTT *x)
{
    KTT s;
    KF(from_mont)(&s, x);
    kt_mpz_from_limbs(z, s.l);
}

static void KH(lagrange)(void)
{
    mpz_t r, t, om, want, got, p[64];
    mpz_inits(r, t, om, want, got, NULL);
    mpz_set_str(r, KT_R, 0);
    for (unsigned i = 0; i < 64; i++)
        mpz_init(p[i]);
    for (unsigned log_n = 1; log_n <= 6; log_n++) {
        unsigned n = 1u << log_n;
        KTT tau, delta, shift, L[64], Ls[64];
        KH(rand)(&tau, t, r);
        KF(set_one)(&delta);
        KT_CAT(KT_C, _ntt_coset_shift)(&shift, log_n);
        KQAP q;
        cr_assert(KG(qap_init)(&q, &tau, &delta, log_n, &shift) == 0);
        cr_assert(KG(lagrange)(&q, L, 0, n) == 0);
        kt_root(om, r, n);
        for (unsigned i = 0; i < n; i++)
            mpz_powm_ui(p[i], om, i, r);
        for (unsigned i = 0; i < n; i++) {
            kt_lagrange_naive(want, t, p, n, i, r);
            KH(to_mpz)(got, &L[i]);
            cr_assert(mpz_cmp(want, got) == 0, "n = %u: L_%u(tau) differs from GMP", n, i);
        }
        if (n >= 8) { /* a sub-range gives the same values */
            cr_assert(KG(lagrange)(&q, Ls, 3, n - 5) == 0);
            for (unsigned i = 0; i < n - 5; i++)
                cr_assert(KF(eq)(&Ls[i], &L[i + 3]), "n = %u: offset entry %u", n, i);
        }
        /* τ in the domain is refused */
        KTT w;
        kt_limbs_from_mpz(w.l, p[1]);
        KF(to_mont)(&w, &w);
        cr_assert(KG(qap_init)(&q, &w, &delta, log_n, &shift) == -EDOM);
    }
    for (unsigned i = 0; i < 64; i++)
        mpz_clear(p[i]);
    mpz_clears(r, t, om, want, got, NULL);
}

static void KH(h_bases)(void)
{
    mpz_t r, t, d, om2, want, got, p[64];
    mpz_inits(r, t, d, om2, want, got, NULL);
    mpz_set_str(r, KT_R, 0);
    for (unsigned i = 0; i < 64; i++)
        mpz_init(p[i]);
    for (unsigned log_n = 1; log_n <= 5; log_n++) {
        unsigned n = 1u << log_n;
        KTT tau, delta, shift, H[32];
        KH(rand)(&tau, t, r);
        KH(rand)(&delta, d, r);
        KT_CAT(KT_C, _ntt_coset_shift)(&shift, log_n);
        KQAP q;
        cr_assert(KG(qap_init)(&q, &tau, &delta, log_n, &shift) == 0);
        cr_assert(KG(h_bases)(&q, H, 0, n) == 0);
        kt_root(om2, r, 2 * n); /* the 2n domain, snarkjs's ω_{2n} */
        for (unsigned i = 0; i < 2 * n; i++)
            mpz_powm_ui(p[i], om2, i, r);
        mpz_invert(d, d, r);
        for (unsigned i = 0; i < n; i++) {
            kt_lagrange_naive(want, t, p, 2 * n, 2 * i + 1, r);
            mpz_mul(want, want, d);
            mpz_mod(want, want, r);
            KH(to_mpz)(got, &H[i]);
            cr_assert(mpz_cmp(want, got) == 0, "n = %u: H_%u differs from L^(2n)_%u(tau)/delta",
                      n, i, 2 * i + 1);
        }
    }
    for (unsigned i = 0; i < 64; i++)
        mpz_clear(p[i]);
    mpz_clears(r, t, d, om2, want, got, NULL);
}

/* Shift 25 (snarkjs's Fr.shift at the 2-adicity), checked by what the H
 * points are for: Σ h_i·H_i = H(τ)·Z(τ)/δ with h_i = H(x_i)·Z(x_i). */
static void KH(h_coset)(void)
{
    mpz_t r, t, d, om, x, hx, zx, acc, want, got, c[16], tmp;
    mpz_inits(r, t, d, om, x, hx, zx, acc, want, got, tmp, NULL);
    mpz_set_str(r, KT_R, 0);
    for (unsigned i = 0; i < 16; i++)
        mpz_init(c[i]);
    for (unsigned log_n = 1; log_n <= 4; log_n++) {
        unsigned n = 1u << log_n;
        KTT tau, delta, shift, H[16], junk;
        KH(rand)(&tau, t, r);
        KH(rand)(&delta, d, r);
        KF(from_u64)(&shift, 25);
        KQAP q;
        cr_assert(KG(qap_init)(&q, &tau, &delta, log_n, &shift) == 0);
        cr_assert(KG(h_bases)(&q, H, 0, n) == 0);
        for (unsigned i = 0; i + 1 < n; i++) /* H of degree n − 2 */
            KH(rand)(&junk, c[i], r);
        kt_root(om, r, n);
        mpz_set_ui(acc, 0);
        for (unsigned i = 0; i < n; i++) {
            mpz_powm_ui(x, om, i, r);
            mpz_mul_ui(x, x, 25);
            mpz_mod(x, x, r);
            mpz_set_ui(hx, 0); /* Horner */
            for (unsigned k = n - 1; k-- > 0;) {
                mpz_mul(hx, hx, x);
                mpz_add(hx, hx, c[k]);
                mpz_mod(hx, hx, r);
            }
            mpz_powm_ui(zx, x, n, r);
            mpz_sub_ui(zx, zx, 1);
            mpz_mul(hx, hx, zx);
            KH(to_mpz)(got, &H[i]);
            mpz_mul(tmp, hx, got);
            mpz_add(acc, acc, tmp);
            mpz_mod(acc, acc, r);
        }
        mpz_set_ui(want, 0);
        for (unsigned k = n - 1; k-- > 0;) {
            mpz_mul(want, want, t);
            mpz_add(want, want, c[k]);
            mpz_mod(want, want, r);
        }
        mpz_powm_ui(zx, t, n, r);
        mpz_sub_ui(zx, zx, 1);
        mpz_mul(want, want, zx);
        mpz_invert(tmp, d, r);
        mpz_mul(want, want, tmp);
        mpz_mod(want, want, r);
        cr_assert(mpz_cmp(want, acc) == 0, "n = %u: sum h_i H_i != H(tau) Z(tau) / delta", n);
    }
    for (unsigned i = 0; i < 16; i++)
        mpz_clear(c[i]);
    mpz_clears(r, t, d, om, x, hx, zx, acc, want, got, tmp, NULL);
}

struct KH(check) {
    const KTT *w;
    uint64_t rows, terms[3];
    uint32_t n_public, n_vars;
};

static int KH(check_row)(void *ctx, uint32_t row, const KTERM *const rows[3], const unsigned nt[3])
{
    struct KH(check) *c = ctx;
    KTT sum[3];
    cr_assert_eq(row, c->rows, "rows out of order");
    for (unsigned m = 0; m < 3; m++) {
        KF(set_zero)(&sum[m]);
        for (unsigned k = 0; k < nt[m]; k++) {
            KTT p;
            cr_assert(rows[m][k].signal <= 1 + c->n_public + row,
                      "row %u: signal %u is not an earlier wire or the row's own", row,
                      rows[m][k].signal);
            cr_assert(rows[m][k].signal < c->n_vars, "row %u: signal %u past nVars %u", row,
                      rows[m][k].signal, c->n_vars);
            KF(mul)(&p, &rows[m][k].value, &c->w[rows[m][k].signal]);
            KF(add)(&sum[m], &sum[m], &p);
        }
        c->terms[m] += nt[m];
    }
    KTT ab;
    KF(mul)(&ab, &sum[0], &sum[1]);
    cr_assert(KF(eq)(&ab, &sum[2]), "row %u: (A.w)(B.w) != C.w", row);
    c->rows++;
    return 0;
}

static void KH(circuit)(void)
{
    /* { N, K, --vars (0: the default 1 + K + N) } */
    static const uint32_t sizes[][3] = { { 1, 0, 0 },    { 7, 0, 0 },       { 16, 0, 0 },
                                         { 17, 3, 0 },   { 40, 0, 0 },      { 1000, 0, 0 },
                                         { 4000, 7, 0 }, { 4000, 7, 1 + 7 + 16 },
                                         { 4000, 7, 1000 }, { 1000, 0, 1001 } };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        struct keygen_shape s;
        struct sp_err e;
        cr_assert(keygen_shape(&s, sizes[z][0], sizes[z][1], &e) == 0);
        if (sizes[z][2])
            cr_assert(keygen_shape_vars(&s, sizes[z][2], &e) == 0, "%s", e.msg);
        KTT *w = calloc(s.n_vars, sizeof(KTT)), *w2 = calloc(s.n_vars, sizeof(KTT));
        cr_assert(w && w2);
        /* The generator sets each new wire before it emits the row, so the
         * rows are checked as they come; a second run with the same seed
         * must give the same witness. */
        struct keygen_rng g;
        keygen_rng_seed(&g, 99 + z);
        struct KH(check) c = { .w = w, .n_public = s.n_public, .n_vars = s.n_vars };
        cr_assert(KG(circuit)(&s, &g, w, KH(check_row), &c) == 0);
        keygen_rng_seed(&g, 99 + z);
        struct KH(check) c2 = { .w = w2, .n_public = s.n_public, .n_vars = s.n_vars };
        cr_assert(KG(circuit)(&s, &g, w2, KH(check_row), &c2) == 0);
        cr_assert(memcmp(w, w2, s.n_vars * sizeof(KTT)) == 0, "same seed, different witness");
        cr_assert_eq(c.rows, s.n_constraints);
        cr_assert(c.terms[0] == s.n_a && c.terms[1] == s.n_b && c.terms[2] == s.n_c,
                  "term counts differ from keygen_shape at N = %u", s.n_constraints);
        if (s.n_vars >= 1000) { /* the mix: bits and full-size values */
            uint64_t small = 0, full = 0;
            for (uint32_t i = 0; i < s.n_vars; i++) {
                KTT v;
                KF(from_mont)(&v, &w[i]);
                if (v.l[1] == 0 && v.l[2] == 0 && v.l[3] == 0 && v.l[0] <= 1)
                    small++;
                else if (v.l[3] >> 32)
                    full++;
            }
            cr_assert(small * 100 >= 60 * (uint64_t)s.n_vars, "0/1 values: %llu of %u",
                      (unsigned long long)small, s.n_vars);
            cr_assert(full * 100 >= 20 * (uint64_t)s.n_vars, "full-size values: %llu of %u",
                      (unsigned long long)full, s.n_vars);
        }
        free(w);
        free(w2);
    }
}

#undef KFR
#undef KF
#undef KTT
#undef KG
#undef KH
#undef KQAP
#undef KTERM

#endif
