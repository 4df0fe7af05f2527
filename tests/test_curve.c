/*
 * test_curve.c - the four groups (bn254 / bls12381, G1 / G2) from
 * common/curve_tmpl.h: generator and b constants vs GMP, on-curve checks,
 * group laws on random points k*G, the group order r, scalar
 * multiplication vs repeated addition and distributivity, batch affine
 * conversion (with infinities) and projective equality.
 *
 * One set of test bodies drives every group through a table of
 * type-erased wrappers (struct grp). Randomness: fixed-seed xorshift.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(curve_bn254_g1, .timeout = 120);
TestSuite(curve_bn254_g2, .timeout = 120);
TestSuite(curve_bls12381_g1, .timeout = 120);
TestSuite(curve_bls12381_g2, .timeout = 120);

#define CT_MAXW 36  /* words in the largest Jacobian point (BLS G2) */
#define CT_NPTS 6   /* random points per law test */
#define CT_BATCH 12 /* batch_to_affine test size */

/* ---------------------------------------------------------------- PRNG */

static uint64_t ct_rng_state;

static void ct_seed(uint64_t s)
{
    ct_rng_state = s ? s : 0x9e3779b97f4a7c15ULL;
}

static uint64_t ct_rand64(void)
{
    uint64_t x = ct_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ct_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------- the grp table */

/* Points travel as word buffers: pt (Jacobian) and aff (affine). */
typedef struct {
    uint64_t w[CT_MAXW];
} pt;

struct grp {
    const char *name;
    int fp_limbs; /* limbs of the base prime field */
    int degree;   /* coordinate field degree: 1 (G1) or 2 (G2) */
    const char *q_str, *r_str; /* base field and group order */
    /* standard-form generator coordinates, c0 then c1 for Fp2: x..., y... */
    const char *gen_str[4];
    /* b as standard-form components, "" entries computed (see below) */
    int b_kind; /* 0: b = b0 + b1 u given; 1: bn254 twist 3/(9+u) */
    unsigned long b0, b1;
    const uint64_t *r_limbs; /* 4 limbs */
    const void *gen;         /* affine generator (raw) */
    const void *b;           /* b (raw, GF_t) */
    size_t jac_words, aff_words;
    void (*set_inf)(pt *);
    int (*is_inf)(const pt *);
    int (*aff_is_inf)(const pt *);
    void (*from_affine)(pt *, const pt *);
    void (*to_affine)(pt *, const pt *);
    void (*batch)(pt *aff, const pt *jac, size_t n);
    void (*dbl)(pt *, const pt *);
    void (*add)(pt *, const pt *, const pt *);
    void (*add_affine)(pt *, const pt *, const pt *);
    void (*neg)(pt *, const pt *);
    int (*eq)(const pt *, const pt *);
    int (*aff_on_curve)(const pt *);
    int (*on_curve)(const pt *);
    void (*mul)(pt *, const pt *, const uint64_t *, size_t);
    void (*mul_aff)(pt *, const pt *, const uint64_t *, size_t);
    /* Z-rescaling: ret = (X l^2, Y l^3, Z l) for l = small integer k */
    void (*rescale)(pt *, const pt *, uint64_t k);
};

/* Wrappers: copy into the real types, call (ret aliasing an input where
 * the API allows it), copy out. */
#define CT_WRAP(G, GF)                                                     \
    static void G##_w_set_inf(pt *r)                                       \
    {                                                                      \
        G##_jac_t x;                                                       \
        G##_set_inf(&x);                                                   \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static int G##_w_is_inf(const pt *p)                                   \
    {                                                                      \
        G##_jac_t x;                                                       \
        memcpy(&x, p, sizeof x);                                           \
        return G##_is_inf(&x);                                             \
    }                                                                      \
    static int G##_w_aff_is_inf(const pt *p)                               \
    {                                                                      \
        G##_affine_t x;                                                    \
        memcpy(&x, p, sizeof x);                                           \
        return G##_affine_is_inf(&x);                                      \
    }                                                                      \
    static void G##_w_from_affine(pt *r, const pt *a)                      \
    {                                                                      \
        G##_affine_t x;                                                    \
        G##_jac_t y;                                                       \
        memcpy(&x, a, sizeof x);                                           \
        G##_from_affine(&y, &x);                                           \
        memcpy(r, &y, sizeof y);                                           \
    }                                                                      \
    static void G##_w_to_affine(pt *r, const pt *p)                        \
    {                                                                      \
        G##_affine_t x;                                                    \
        G##_jac_t y;                                                       \
        memcpy(&y, p, sizeof y);                                           \
        G##_to_affine(&x, &y);                                             \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void G##_w_batch(pt *aff, const pt *jac, size_t n)              \
    {                                                                      \
        G##_affine_t x[CT_BATCH];                                          \
        G##_jac_t y[CT_BATCH];                                             \
        GF##_t scratch[CT_BATCH];                                          \
        cr_assert(n <= CT_BATCH);                                          \
        for (size_t i = 0; i < n; i++)                                     \
            memcpy(&y[i], &jac[i], sizeof y[i]);                           \
        memset(x, 0x77, sizeof x);                                         \
        G##_batch_to_affine(x, y, n, scratch);                             \
        for (size_t i = 0; i < n; i++)                                     \
            memcpy(&aff[i], &x[i], sizeof x[i]);                           \
    }                                                                      \
    static void G##_w_dbl(pt *r, const pt *p)                              \
    {                                                                      \
        G##_jac_t x;                                                       \
        memcpy(&x, p, sizeof x);                                           \
        G##_dbl(&x, &x);                                                   \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void G##_w_add(pt *r, const pt *p, const pt *q)                 \
    {                                                                      \
        G##_jac_t x, y;                                                    \
        memcpy(&x, p, sizeof x);                                           \
        memcpy(&y, q, sizeof y);                                           \
        G##_add(&y, &x, &y); /* ret aliases q */                           \
        memcpy(r, &y, sizeof y);                                           \
    }                                                                      \
    static void G##_w_add_affine(pt *r, const pt *p, const pt *q)          \
    {                                                                      \
        G##_jac_t x;                                                       \
        G##_affine_t y;                                                    \
        memcpy(&x, p, sizeof x);                                           \
        memcpy(&y, q, sizeof y);                                           \
        G##_add_affine(&x, &x, &y);                                        \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void G##_w_neg(pt *r, const pt *p)                              \
    {                                                                      \
        G##_jac_t x;                                                       \
        memcpy(&x, p, sizeof x);                                           \
        G##_neg(&x, &x);                                                   \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static int G##_w_eq(const pt *p, const pt *q)                          \
    {                                                                      \
        G##_jac_t x, y;                                                    \
        memcpy(&x, p, sizeof x);                                           \
        memcpy(&y, q, sizeof y);                                           \
        return G##_eq(&x, &y);                                             \
    }                                                                      \
    static int G##_w_aff_on_curve(const pt *a)                             \
    {                                                                      \
        G##_affine_t x;                                                    \
        memcpy(&x, a, sizeof x);                                           \
        return G##_affine_is_on_curve(&x);                                 \
    }                                                                      \
    static int G##_w_on_curve(const pt *p)                                 \
    {                                                                      \
        G##_jac_t x;                                                       \
        memcpy(&x, p, sizeof x);                                           \
        return G##_is_on_curve(&x);                                        \
    }                                                                      \
    static void G##_w_mul(pt *r, const pt *p, const uint64_t *k, size_t n) \
    {                                                                      \
        G##_jac_t x;                                                       \
        memcpy(&x, p, sizeof x);                                           \
        G##_mul_scalar(&x, &x, k, n);                                      \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void G##_w_mul_aff(pt *r, const pt *a, const uint64_t *k,       \
                              size_t n)                                    \
    {                                                                      \
        G##_affine_t x;                                                    \
        G##_jac_t y;                                                       \
        memcpy(&x, a, sizeof x);                                           \
        G##_mul_scalar_affine(&y, &x, k, n);                               \
        memcpy(r, &y, sizeof y);                                           \
    }                                                                      \
    static void G##_w_rescale(pt *r, const pt *p, uint64_t k)              \
    {                                                                      \
        G##_jac_t x;                                                       \
        GF##_t l, l2, l3;                                                  \
        memcpy(&x, p, sizeof x);                                           \
        GF##_set_zero(&l);                                                 \
        GF##_set_one(&l2);                                                 \
        for (uint64_t i = 0; i < k; i++)                                   \
            GF##_add(&l, &l, &l2);                                         \
        GF##_sqr(&l2, &l);                                                 \
        GF##_mul(&l3, &l2, &l);                                            \
        GF##_mul(&x.X, &x.X, &l2);                                         \
        GF##_mul(&x.Y, &x.Y, &l3);                                         \
        GF##_mul(&x.Z, &x.Z, &l);                                          \
        memcpy(r, &x, sizeof x);                                           \
    }

CT_WRAP(bn254_g1, bn254_fp)
CT_WRAP(bn254_g2, bn254_fp2)
CT_WRAP(bls12381_g1, bls12381_fp)
CT_WRAP(bls12381_g2, bls12381_fp2)

#define CT_OPS(G)                                                          \
    .r_limbs = TMPL_CAT(G, _r_limbs), .gen = &G##_generator, .b = &G##_b,  \
    .jac_words = sizeof(G##_jac_t) / 8, .aff_words = sizeof(G##_affine_t) / 8, \
    .set_inf = G##_w_set_inf, .is_inf = G##_w_is_inf,                      \
    .aff_is_inf = G##_w_aff_is_inf, .from_affine = G##_w_from_affine,      \
    .to_affine = G##_w_to_affine, .batch = G##_w_batch, .dbl = G##_w_dbl,  \
    .add = G##_w_add, .add_affine = G##_w_add_affine, .neg = G##_w_neg,    \
    .eq = G##_w_eq, .aff_on_curve = G##_w_aff_on_curve,                    \
    .on_curve = G##_w_on_curve, .mul = G##_w_mul, .mul_aff = G##_w_mul_aff, \
    .rescale = G##_w_rescale

#define bn254_g1_r_limbs bn254_fr_modulus.l
#define bn254_g2_r_limbs bn254_fr_modulus.l
#define bls12381_g1_r_limbs bls12381_fr_modulus.l
#define bls12381_g2_r_limbs bls12381_fr_modulus.l

#define CT_BN_Q                                                            \
    "21888242871839275222246405745257275088696311157297823662689037894645226208583"
#define CT_BN_R                                                            \
    "21888242871839275222246405745257275088548364400416034343698204186575808495617"
#define CT_BLS_Q                                                           \
    "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"   \
    "1eabfffeb153ffffb9feffffffffaaab"
#define CT_BLS_R                                                           \
    "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"

static const struct grp grp_bn254_g1 = {
    .name = "bn254_g1", .fp_limbs = 4, .degree = 1,
    .q_str = CT_BN_Q, .r_str = CT_BN_R,
    .gen_str = {"1", "2"},
    .b_kind = 0, .b0 = 3, .b1 = 0,
    CT_OPS(bn254_g1),
};
static const struct grp grp_bn254_g2 = {
    .name = "bn254_g2", .fp_limbs = 4, .degree = 2,
    .q_str = CT_BN_Q, .r_str = CT_BN_R,
    .gen_str = {
        "10857046999023057135944570762232829481370756359578518086990519993285655852781",
        "11559732032986387107991004021392285783925812861821192530917403151452391805634",
        "8495653923123431417604973247489272438418190587263600148770280649306958101930",
        "4082367875863433681332203403145435568316851327593401208105741076214120093531",
    },
    .b_kind = 1,
    CT_OPS(bn254_g2),
};
static const struct grp grp_bls12381_g1 = {
    .name = "bls12381_g1", .fp_limbs = 6, .degree = 1,
    .q_str = CT_BLS_Q, .r_str = CT_BLS_R,
    .gen_str = {
        "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
        "6c55e83ff97a1aeffb3af00adb22c6bb",
        "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
        "d03cc744a2888ae40caa232946c5e7e1",
    },
    .b_kind = 0, .b0 = 4, .b1 = 0,
    CT_OPS(bls12381_g1),
};
static const struct grp grp_bls12381_g2 = {
    .name = "bls12381_g2", .fp_limbs = 6, .degree = 2,
    .q_str = CT_BLS_Q, .r_str = CT_BLS_R,
    .gen_str = {
        "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
        "0bac0326a805bbefd48056c8c121bdb8",
        "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
        "334cf11213945d57e5ac7d055d042b7e",
        "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c"
        "923ac9cc3baca289e193548608b82801",
        "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab"
        "3f370d275cec1da1aaa9075ff05f79be",
    },
    .b_kind = 0, .b0 = 4, .b1 = 4,
    CT_OPS(bls12381_g2),
};

/* ------------------------------------------------------------ helpers */

static void ct_limbs_to_mpz(mpz_t z, const uint64_t *l, size_t n)
{
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

static void ct_mpz_to_limbs(uint64_t *l, const mpz_t z, size_t n)
{
    cr_assert(mpz_sgn(z) >= 0 && mpz_sizeinbase(z, 2) <= 64 * n);
    memset(l, 0, 8 * n);
    mpz_export(l, NULL, -1, sizeof(uint64_t), 0, 0, z);
}

/* Random scalar k < r (4 limbs). */
static void ct_rand_scalar(const struct grp *g, uint64_t k[4])
{
    mpz_t z, r;
    mpz_inits(z, r, NULL);
    uint64_t l[5];
    for (int i = 0; i < 5; i++)
        l[i] = ct_rand64();
    ct_limbs_to_mpz(z, l, 5);
    ct_limbs_to_mpz(r, g->r_limbs, 4);
    mpz_mod(z, z, r);
    ct_mpz_to_limbs(k, z, 4);
    mpz_clears(z, r, NULL);
}

static void ct_gen_jac(const struct grp *g, pt *out)
{
    pt a;
    memcpy(&a, g->gen, 8 * g->aff_words);
    g->from_affine(out, &a);
}

/* Random point k*G (Jacobian, Z != 1 in general). */
static void ct_rand_point(const struct grp *g, pt *out)
{
    uint64_t k[4];
    pt G;
    ct_rand_scalar(g, k);
    ct_gen_jac(g, &G);
    g->mul(out, &G, k, 4);
}

static void ct_assert_eq(const struct grp *g, const pt *a, const pt *b,
                         const char *what)
{
    cr_assert(g->eq(a, b), "%s: %s", g->name, what);
    cr_assert(g->on_curve(a) && g->on_curve(b), "%s: %s: off curve",
              g->name, what);
}

/* -------------------------------------------------------------- tests */

/* Generator and b vs GMP (x * R mod q), generator on curve, not infinity. */
static void check_generator(const struct grp *g)
{
    mpz_t q, R, v, t0, t1;
    mpz_inits(q, R, v, t0, t1, NULL);
    cr_assert_eq(mpz_set_str(q, g->q_str, 0), 0);
    mpz_setbit(R, (mp_bitcnt_t)(64 * g->fp_limbs));
    size_t n = (size_t)g->fp_limbs;
    const uint64_t *gw = g->gen;
    uint64_t want[6];
    /* generator coordinates: x.c0 [x.c1] y.c0 [y.c1] */
    for (int i = 0; i < 2 * g->degree; i++) {
        cr_assert_eq(mpz_set_str(v, g->gen_str[i], 0), 0);
        mpz_mul(v, v, R);
        mpz_mod(v, v, q);
        ct_mpz_to_limbs(want, v, n);
        cr_assert(!memcmp(gw + i * n, want, 8 * n),
                  "%s: generator coordinate %d", g->name, i);
    }
    /* b */
    const uint64_t *bw = g->b;
    for (int c = 0; c < g->degree; c++) {
        if (g->b_kind == 1) {
            /* 3 / (9 + u) = 3 (9 - u) / 82 = (27 - 3u) / 82 */
            mpz_set_ui(t0, 82);
            cr_assert(mpz_invert(t0, t0, q));
            mpz_set_si(t1, c == 0 ? 27 : -3);
            mpz_mul(v, t1, t0);
        } else {
            mpz_set_ui(v, c == 0 ? g->b0 : g->b1);
        }
        mpz_mod(v, v, q);
        mpz_mul(v, v, R);
        mpz_mod(v, v, q);
        ct_mpz_to_limbs(want, v, n);
        cr_assert(!memcmp(bw + c * n, want, 8 * n), "%s: b component %d",
                  g->name, c);
    }
    /* r matches the scalar field modulus */
    cr_assert_eq(mpz_set_str(v, g->r_str, 0), 0);
    ct_limbs_to_mpz(t0, g->r_limbs, 4);
    cr_assert(mpz_cmp(v, t0) == 0, "%s: r", g->name);

    pt a, G;
    memcpy(&a, g->gen, 8 * g->aff_words);
    cr_assert(g->aff_on_curve(&a), "%s: generator not on curve", g->name);
    cr_assert(!g->aff_is_inf(&a));
    ct_gen_jac(g, &G);
    cr_assert(!g->is_inf(&G) && g->on_curve(&G));
    mpz_clears(q, R, v, t0, t1, NULL);
}

/* r * G == infinity, (r-1) G == -G, (r+1) G == G, for both scalar mul
 * entry points. */
static void check_order(const struct grp *g)
{
    pt G, Ga, P, nG;
    uint64_t k[5];
    ct_gen_jac(g, &G);
    memcpy(&Ga, g->gen, 8 * g->aff_words);
    g->mul(&P, &G, g->r_limbs, 4);
    cr_assert(g->is_inf(&P), "%s: r * G != inf", g->name);
    g->mul_aff(&P, &Ga, g->r_limbs, 4);
    cr_assert(g->is_inf(&P), "%s: r * G != inf (affine)", g->name);
    memcpy(k, g->r_limbs, 32);
    k[0] -= 1; /* r is odd */
    g->mul(&P, &G, k, 4);
    g->neg(&nG, &G);
    ct_assert_eq(g, &P, &nG, "(r-1) G == -G");
    k[0] += 2;
    k[4] = 0;
    g->mul(&P, &G, k, 5);
    ct_assert_eq(g, &P, &G, "(r+1) G == G");
    /* k = 0 and empty k give infinity */
    g->mul(&P, &G, k, 0);
    cr_assert(g->is_inf(&P));
    memset(k, 0, sizeof k);
    g->mul_aff(&P, &Ga, k, 5);
    cr_assert(g->is_inf(&P));
}

/* Associativity, commutativity, identity, inverse, add(P,P) == dbl(P),
 * mixed add == full add (incl. its special cases), to/from affine. */
static void check_laws(const struct grp *g, uint64_t seed)
{
    ct_seed(seed);
    pt P[CT_NPTS], inf, A, B, C, D, Pa, Qa, infa, nP;
    for (int i = 0; i < CT_NPTS; i++) {
        ct_rand_point(g, &P[i]);
        cr_assert(g->on_curve(&P[i]) && !g->is_inf(&P[i]));
    }
    g->set_inf(&inf);
    cr_assert(g->is_inf(&inf) && g->on_curve(&inf));
    memset(&infa, 0, sizeof infa);
    cr_assert(g->aff_is_inf(&infa) && g->aff_on_curve(&infa));

    for (int i = 0; i < CT_NPTS; i++) {
        const pt *p = &P[i], *q = &P[(i + 1) % CT_NPTS],
                 *s = &P[(i + 2) % CT_NPTS];
        /* commutativity */
        g->add(&A, p, q);
        g->add(&B, q, p);
        ct_assert_eq(g, &A, &B, "p + q == q + p");
        /* associativity */
        g->add(&A, p, q);
        g->add(&A, &A, s);
        g->add(&B, q, s);
        g->add(&B, p, &B);
        ct_assert_eq(g, &A, &B, "(p + q) + s == p + (q + s)");
        /* identity */
        g->add(&A, p, &inf);
        ct_assert_eq(g, &A, p, "p + inf");
        g->add(&A, &inf, p);
        ct_assert_eq(g, &A, p, "inf + p");
        g->add(&A, &inf, &inf);
        cr_assert(g->is_inf(&A));
        /* inverse */
        g->neg(&nP, p);
        cr_assert(!g->eq(&nP, p));
        g->add(&A, p, &nP);
        cr_assert(g->is_inf(&A), "%s: p + (-p) != inf", g->name);
        /* doubling */
        g->add(&A, p, p);
        g->dbl(&B, p);
        ct_assert_eq(g, &A, &B, "p + p == dbl(p)");
        g->rescale(&C, p, 7 + (uint64_t)i); /* same point, other Z */
        g->add(&A, p, &C);
        ct_assert_eq(g, &A, &B, "p + p' == dbl(p) (different Z)");
        g->dbl(&C, &inf);
        cr_assert(g->is_inf(&C));
        /* mixed add == full add */
        g->to_affine(&Qa, q);
        cr_assert(g->aff_on_curve(&Qa));
        g->add_affine(&A, p, &Qa);
        g->add(&B, p, q);
        ct_assert_eq(g, &A, &B, "add_affine == add");
        g->to_affine(&Pa, p);
        g->add_affine(&A, p, &Pa);
        g->dbl(&B, p);
        ct_assert_eq(g, &A, &B, "add_affine(p, p) == dbl(p)");
        g->add_affine(&A, &nP, &Pa);
        cr_assert(g->is_inf(&A), "%s: -p + aff(p) != inf", g->name);
        g->add_affine(&A, p, &infa);
        ct_assert_eq(g, &A, p, "p + aff(inf)");
        g->add_affine(&A, &inf, &Qa);
        ct_assert_eq(g, &A, q, "inf + aff(q)");
        g->add_affine(&A, &inf, &infa);
        cr_assert(g->is_inf(&A));
        /* affine round trip */
        g->from_affine(&D, &Pa);
        ct_assert_eq(g, &D, p, "from_affine(to_affine(p))");
        g->to_affine(&A, &inf);
        cr_assert(g->aff_is_inf(&A));
        g->from_affine(&A, &infa);
        cr_assert(g->is_inf(&A));
        /* eq is projective: rescaled copies equal, others differ */
        g->rescale(&C, q, 3);
        cr_assert(g->eq(&C, q) && g->eq(q, &C));
        cr_assert(!g->eq(p, q) && !g->eq(p, &inf) && !g->eq(&inf, p));
        cr_assert(g->eq(&inf, &inf));
    }
}

/* k * P == P + P + ... + P for k = 0..40 (P = G and a random point), and
 * the affine-base variant agrees. */
static void check_small_scalars(const struct grp *g, uint64_t seed)
{
    ct_seed(seed);
    pt bases[2], acc, R, Pa;
    ct_gen_jac(g, &bases[0]);
    ct_rand_point(g, &bases[1]);
    for (int b = 0; b < 2; b++) {
        g->set_inf(&acc);
        g->to_affine(&Pa, &bases[b]);
        for (uint64_t k = 0; k <= 40; k++) {
            uint64_t kk[2] = {k, 0};
            g->mul(&R, &bases[b], kk, 2);
            if (k == 0)
                cr_assert(g->is_inf(&R));
            else
                ct_assert_eq(g, &R, &acc, "k P == P + ... + P");
            g->mul_aff(&R, &Pa, kk, 1);
            if (k == 0)
                cr_assert(g->is_inf(&R));
            else
                ct_assert_eq(g, &R, &acc, "k P (affine base)");
            g->add(&acc, &acc, &bases[b]);
        }
    }
}

/* a P + b P == ((a + b) mod r) P and a (b P) == (a b mod r) P. */
static void check_distributive(const struct grp *g, uint64_t seed)
{
    ct_seed(seed);
    mpz_t za, zb, zr, zs;
    mpz_inits(za, zb, zr, zs, NULL);
    ct_limbs_to_mpz(zr, g->r_limbs, 4);
    for (int it = 0; it < 4; it++) {
        uint64_t a[4], b[4], s[4];
        pt P, A, B, S;
        ct_rand_point(g, &P);
        ct_rand_scalar(g, a);
        ct_rand_scalar(g, b);
        if (it == 0) { /* a + b == r exactly: sum must be infinity */
            ct_limbs_to_mpz(za, a, 4);
            mpz_sub(zb, zr, za);
            ct_mpz_to_limbs(b, zb, 4);
        }
        ct_limbs_to_mpz(za, a, 4);
        ct_limbs_to_mpz(zb, b, 4);
        mpz_add(zs, za, zb);
        mpz_mod(zs, zs, zr);
        ct_mpz_to_limbs(s, zs, 4);
        g->mul(&A, &P, a, 4);
        g->mul(&B, &P, b, 4);
        g->add(&A, &A, &B);
        g->mul(&S, &P, s, 4);
        if (it == 0)
            cr_assert(g->is_inf(&A) && g->is_inf(&S));
        else
            ct_assert_eq(g, &A, &S, "aP + bP == (a+b)P");
        mpz_mul(zs, za, zb);
        mpz_mod(zs, zs, zr);
        ct_mpz_to_limbs(s, zs, 4);
        g->mul(&B, &P, b, 4);
        g->mul(&A, &B, a, 4);
        g->mul(&S, &P, s, 4);
        ct_assert_eq(g, &A, &S, "a(bP) == (ab)P");
    }
    mpz_clears(za, zb, zr, zs, NULL);
}

/* batch_to_affine == to_affine one by one, with infinities at the start,
 * middle and end; plus n = 0 and an all-infinity batch. */
static void check_batch(const struct grp *g, uint64_t seed)
{
    ct_seed(seed);
    pt jac[CT_BATCH], aff[CT_BATCH], one;
    for (int i = 0; i < CT_BATCH; i++) {
        if (i == 0 || i == 5 || i == CT_BATCH - 1) {
            g->set_inf(&jac[i]);
        } else if (i == 3) {
            jac[i] = jac[2]; /* repeated point */
        } else {
            ct_rand_point(g, &jac[i]);
        }
    }
    g->batch(aff, jac, CT_BATCH);
    for (int i = 0; i < CT_BATCH; i++) {
        g->to_affine(&one, &jac[i]);
        cr_assert(!memcmp(&one, &aff[i], 8 * g->aff_words),
                  "%s: batch entry %d", g->name, i);
        cr_assert(g->aff_on_curve(&aff[i]));
        if (g->is_inf(&jac[i]))
            cr_assert(g->aff_is_inf(&aff[i]));
    }
    g->batch(aff, jac, 0);
    for (int i = 0; i < 3; i++)
        g->set_inf(&jac[i]);
    g->batch(aff, jac, 3);
    for (int i = 0; i < 3; i++)
        cr_assert(g->aff_is_inf(&aff[i]));
    g->batch(aff, jac + 1, 1);
    cr_assert(g->aff_is_inf(&aff[0]));
}

/* On-curve rejects perturbed points (x + 1, y + 1, and Z changed). */
static void check_perturbed(const struct grp *g, uint64_t seed)
{
    ct_seed(seed);
    size_t n = (size_t)g->fp_limbs;
    pt P, a, bad;
    for (int it = 0; it < 4; it++) {
        if (it == 0)
            ct_gen_jac(g, &P);
        else
            ct_rand_point(g, &P);
        g->to_affine(&a, &P);
        cr_assert(g->aff_on_curve(&a));
        /* flip the lowest bit of one coordinate component (the raw value
         * stays < q unless it was q - 1, which these points are not) */
        for (size_t c = 0; c < 2 * (size_t)g->degree; c++) {
            bad = a;
            bad.w[c * n] ^= 1;
            cr_assert(!g->aff_on_curve(&bad),
                      "%s: perturbed coordinate %zu accepted", g->name, c);
        }
        /* (0, y) is not infinity and not on the curve */
        bad = a;
        memset(bad.w, 0, 8 * n * (size_t)g->degree);
        cr_assert(!g->aff_is_inf(&bad) && !g->aff_on_curve(&bad));
        /* Jacobian: change Z */
        bad = P;
        bad.w[2 * n * (size_t)g->degree] ^= 2;
        cr_assert(!g->on_curve(&bad), "%s: perturbed Z accepted", g->name);
    }
}

#define CURVE_TESTS(suite, G, seed)                                        \
    Test(suite, generator) { check_generator(&G); }                        \
    Test(suite, order) { check_order(&G); }                                \
    Test(suite, laws) { check_laws(&G, (seed) + 1); }                      \
    Test(suite, small_scalars) { check_small_scalars(&G, (seed) + 2); }    \
    Test(suite, distributive) { check_distributive(&G, (seed) + 3); }      \
    Test(suite, batch_to_affine) { check_batch(&G, (seed) + 4); }          \
    Test(suite, perturbed) { check_perturbed(&G, (seed) + 5); }

CURVE_TESTS(curve_bn254_g1, grp_bn254_g1, 0x100)
CURVE_TESTS(curve_bn254_g2, grp_bn254_g2, 0x200)
CURVE_TESTS(curve_bls12381_g1, grp_bls12381_g1, 0x300)
CURVE_TESTS(curve_bls12381_g2, grp_bls12381_g2, 0x400)
