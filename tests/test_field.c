/*
 * test_field.c - prime fields and Fp2 (common/field_tmpl.h, fp2_tmpl.h,
 * bn254.h, bls12381.h) checked against GMP.
 *
 * Every field is driven through a small table of type-erased wrappers
 * (struct fld) so that one set of test bodies covers bn254 fr/fp/fp2,
 * bls12381 fr/fp/fp2 and a test-only field with a full-width modulus
 * (secp256k1's p, top limb all ones) that exercises the generic CIOS path.
 *
 * The same suites cover whichever multiplication path is active (mulx/adx
 * on x86-64 with BMI2 + ADX, else portable C); `make unit` runs them again
 * with SLOTPROVE_NO_ADX=1. field_dispatch checks the path choice against
 * cpuid and compares mul/sqr/mul2_karatsuba with the portable mul_c
 * directly.
 *
 * Elements travel as raw limbs (the Montgomery representation, c0 then c1
 * for Fp2); the GMP reference converts raw <-> standard with R^-1 / R and
 * computes in standard form. Randomness: fixed-seed xorshift.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"

/* Test-only field: p = 2^256 - 2^32 - 977, top limb 0xfff..f, so the
 * template takes its generic (carry-word) CIOS branch. */
#define FIELD tf_p256
#define FIELD_LIMBS 4
#define FIELD_P                                                            \
    { 0xfffffffefffffc2fULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL, \
      0xffffffffffffffffULL }
#define FIELD_ONE { 0x00000001000003d1ULL, 0, 0, 0 }
#define FIELD_R2 { 0x000007a2000e90a1ULL, 0x0000000000000001ULL, 0, 0 }
#define FIELD_N0 0xd838091dd2253531ULL
#include "field_tmpl.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(field_bn254_fr, .timeout = 120);
TestSuite(field_bn254_fp, .timeout = 120);
TestSuite(field_bn254_fp2, .timeout = 120);
TestSuite(field_bls12381_fr, .timeout = 120);
TestSuite(field_bls12381_fp, .timeout = 120);
TestSuite(field_bls12381_fp2, .timeout = 120);
TestSuite(field_generic_p256, .timeout = 120);
TestSuite(field_dispatch, .timeout = 120);

#define FT_MAXW 12 /* max words per element: Fp2 over a 6-limb field */
#define FT_ITERS 1000

/* ---------------------------------------------------------------- PRNG */

static uint64_t ft_rng_state;

static void ft_seed(uint64_t s)
{
    ft_rng_state = s ? s : 0x9e3779b97f4a7c15ULL;
}

static uint64_t ft_rand64(void)
{
    uint64_t x = ft_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ft_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* -------------------------------------------------------- the fld table */

typedef void (*ft_bin_fn)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*ft_un_fn)(uint64_t *, const uint64_t *);

struct fld {
    const char *name;
    int limbs;  /* limbs of the (base) prime field */
    int degree; /* 1: prime field, 2: Fp2 */
    const char *p_str; /* modulus, independent text (base 0 for GMP) */
    const uint64_t *modulus, *mont_one, *r2;
    uint64_t n0;
    int bytes;          /* the *_BYTES constant, 0 if none */
    int two_adicity;    /* for scalar fields, else 0 */
    const uint64_t *root; /* root of unity (raw), NULL if none */
    ft_bin_fn add, sub, mul;
    ft_bin_fn add_b, sub_b, mul_b; /* same, with ret aliasing b */
    ft_un_fn neg, dbl, sqr, inv, inv_vt, to_mont, from_mont;
    void (*pow)(uint64_t *, const uint64_t *, const uint64_t *, size_t);
    int (*is_zero)(const uint64_t *);
    int (*eq)(const uint64_t *, const uint64_t *);
    void (*set_one)(uint64_t *);
    void (*set_zero)(uint64_t *);
    int (*from_bytes)(uint64_t *, const uint8_t *);
    void (*to_bytes)(uint8_t *, const uint64_t *);
    int (*is_canonical)(const uint64_t *);
    void (*from_u64)(uint64_t *, uint64_t);
};

/* Wrappers copy in and out of the real types (no aliasing games with the
 * caller's buffers) and call the function with ret aliasing the first
 * operand; the _alias_b variant aliases ret with the second operand. */
#define FT_WRAP_BIN(T, fn)                                                 \
    static void fn##_w(uint64_t *r, const uint64_t *a, const uint64_t *b)  \
    {                                                                      \
        T x, y;                                                            \
        memcpy(&x, a, sizeof x);                                           \
        memcpy(&y, b, sizeof y);                                           \
        fn(&x, &x, &y);                                                    \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void fn##_wb(uint64_t *r, const uint64_t *a, const uint64_t *b) \
    {                                                                      \
        T x, y;                                                            \
        memcpy(&x, a, sizeof x);                                           \
        memcpy(&y, b, sizeof y);                                           \
        fn(&y, &x, &y);                                                    \
        memcpy(r, &y, sizeof y);                                           \
    }
#define FT_WRAP_UN(T, fn)                                                  \
    static void fn##_w(uint64_t *r, const uint64_t *a)                     \
    {                                                                      \
        T x;                                                               \
        memcpy(&x, a, sizeof x);                                           \
        fn(&x, &x);                                                        \
        memcpy(r, &x, sizeof x);                                           \
    }

#define FT_WRAP_COMMON(F)                                                  \
    FT_WRAP_BIN(F##_t, F##_add)                                            \
    FT_WRAP_BIN(F##_t, F##_sub)                                            \
    FT_WRAP_BIN(F##_t, F##_mul)                                            \
    FT_WRAP_UN(F##_t, F##_neg)                                             \
    FT_WRAP_UN(F##_t, F##_dbl)                                             \
    FT_WRAP_UN(F##_t, F##_sqr)                                             \
    FT_WRAP_UN(F##_t, F##_inv)                                             \
    FT_WRAP_UN(F##_t, F##_inv_vartime)                                     \
    FT_WRAP_UN(F##_t, F##_to_mont)                                         \
    FT_WRAP_UN(F##_t, F##_from_mont)                                       \
    static int F##_is_zero_w(const uint64_t *a)                            \
    {                                                                      \
        F##_t x;                                                           \
        memcpy(&x, a, sizeof x);                                           \
        return F##_is_zero(&x);                                            \
    }                                                                      \
    static int F##_eq_w(const uint64_t *a, const uint64_t *b)              \
    {                                                                      \
        F##_t x, y;                                                        \
        memcpy(&x, a, sizeof x);                                           \
        memcpy(&y, b, sizeof y);                                           \
        return F##_eq(&x, &y);                                             \
    }                                                                      \
    static void F##_set_one_w(uint64_t *r)                                 \
    {                                                                      \
        F##_t x;                                                           \
        F##_set_one(&x);                                                   \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static void F##_set_zero_w(uint64_t *r)                                \
    {                                                                      \
        F##_t x;                                                           \
        memset(&x, 0x5a, sizeof x);                                        \
        F##_set_zero(&x);                                                  \
        memcpy(r, &x, sizeof x);                                           \
    }

#define FT_WRAP_PRIME(F)                                                   \
    FT_WRAP_COMMON(F)                                                      \
    static void F##_pow_w(uint64_t *r, const uint64_t *a,                  \
                          const uint64_t *e, size_t n)                     \
    {                                                                      \
        F##_t x;                                                           \
        memcpy(&x, a, sizeof x);                                           \
        F##_pow(&x, &x, e, n);                                             \
        memcpy(r, &x, sizeof x);                                           \
    }                                                                      \
    static int F##_from_bytes_w(uint64_t *r, const uint8_t *b)             \
    {                                                                      \
        F##_t x;                                                           \
        memcpy(&x, r, sizeof x);                                           \
        int rc = F##_from_bytes(&x, b);                                    \
        memcpy(r, &x, sizeof x);                                           \
        return rc;                                                         \
    }                                                                      \
    static void F##_to_bytes_w(uint8_t *b, const uint64_t *a)              \
    {                                                                      \
        F##_t x;                                                           \
        memcpy(&x, a, sizeof x);                                           \
        F##_to_bytes(b, &x);                                               \
    }                                                                      \
    static void F##_from_u64_w(uint64_t *r, uint64_t v)                    \
    {                                                                      \
        F##_t x;                                                           \
        F##_from_u64(&x, v);                                               \
        memcpy(r, &x, sizeof x);                                           \
    }

FT_WRAP_PRIME(bn254_fr)
FT_WRAP_PRIME(bn254_fp)
FT_WRAP_COMMON(bn254_fp2)
FT_WRAP_PRIME(bls12381_fr)
FT_WRAP_PRIME(bls12381_fp)
FT_WRAP_COMMON(bls12381_fp2)
FT_WRAP_PRIME(tf_p256)

#define FT_OPS_COMMON(F)                                                   \
    .add = F##_add_w, .sub = F##_sub_w, .mul = F##_mul_w,                  \
    .add_b = F##_add_wb, .sub_b = F##_sub_wb, .mul_b = F##_mul_wb,         \
    .neg = F##_neg_w, .dbl = F##_dbl_w,                                    \
    .sqr = F##_sqr_w, .inv = F##_inv_w, .to_mont = F##_to_mont_w,          \
    .inv_vt = F##_inv_vartime_w,                                           \
    .from_mont = F##_from_mont_w, .is_zero = F##_is_zero_w,                \
    .eq = F##_eq_w, .set_one = F##_set_one_w, .set_zero = F##_set_zero_w

#define FT_OPS_PRIME(F, BASE)                                              \
    FT_OPS_COMMON(F), .modulus = F##_modulus.l, .mont_one = F##_mont_one.l, \
    .r2 = F##_r2.l, .n0 = F##_n0, .pow = F##_pow_w,                        \
    .from_bytes = F##_from_bytes_w, .to_bytes = F##_to_bytes_w,            \
    .is_canonical = F##_is_canonical, .from_u64 = F##_from_u64_w

#define FT_OPS_FP2(F, BASE)                                                \
    FT_OPS_COMMON(F), .modulus = BASE##_modulus.l,                          \
    .mont_one = BASE##_mont_one.l, .r2 = BASE##_r2.l, .n0 = BASE##_n0

static const struct fld fld_bn254_fr = {
    .name = "bn254_fr", .limbs = 4, .degree = 1,
    .p_str = "21888242871839275222246405745257275088548364400416034343698204186575808495617",
    .bytes = BN254_FR_BYTES, .two_adicity = BN254_FR_TWO_ADICITY,
    .root = bn254_fr_root_of_unity.l,
    FT_OPS_PRIME(bn254_fr, bn254_fr),
};
static const struct fld fld_bn254_fp = {
    .name = "bn254_fp", .limbs = 4, .degree = 1,
    .p_str = "21888242871839275222246405745257275088696311157297823662689037894645226208583",
    .bytes = BN254_FP_BYTES,
    FT_OPS_PRIME(bn254_fp, bn254_fp),
};
static const struct fld fld_bn254_fp2 = {
    .name = "bn254_fp2", .limbs = 4, .degree = 2,
    .p_str = "21888242871839275222246405745257275088696311157297823662689037894645226208583",
    FT_OPS_FP2(bn254_fp2, bn254_fp),
};
static const struct fld fld_bls12381_fr = {
    .name = "bls12381_fr", .limbs = 4, .degree = 1,
    .p_str = "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
    .bytes = BLS12381_FR_BYTES, .two_adicity = BLS12381_FR_TWO_ADICITY,
    .root = bls12381_fr_root_of_unity.l,
    FT_OPS_PRIME(bls12381_fr, bls12381_fr),
};
#define FT_BLS_Q                                                           \
    "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"   \
    "1eabfffeb153ffffb9feffffffffaaab"
static const struct fld fld_bls12381_fp = {
    .name = "bls12381_fp", .limbs = 6, .degree = 1, .p_str = FT_BLS_Q,
    .bytes = BLS12381_FP_BYTES,
    FT_OPS_PRIME(bls12381_fp, bls12381_fp),
};
static const struct fld fld_bls12381_fp2 = {
    .name = "bls12381_fp2", .limbs = 6, .degree = 2, .p_str = FT_BLS_Q,
    FT_OPS_FP2(bls12381_fp2, bls12381_fp),
};
static const struct fld fld_p256 = {
    .name = "test_p256 (generic CIOS)", .limbs = 4, .degree = 1,
    .p_str = "0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
    FT_OPS_PRIME(tf_p256, tf_p256),
};

/* ------------------------------------------------------- GMP reference */

/* Context: p, R, R^-1 and the edge values for one field. */
struct ref {
    const struct fld *f;
    int n;  /* limbs per component */
    int w;  /* words per element = n * degree */
    mpz_t p, R, Rinv, tmp;
    int n_edge;
    uint64_t edge[10][6]; /* raw component values */
};

static void limbs_to_mpz(mpz_t z, const uint64_t *l, int n)
{
    mpz_import(z, (size_t)n, -1, sizeof(uint64_t), 0, 0, l);
}

static void mpz_to_limbs(uint64_t *l, const mpz_t z, int n)
{
    size_t cnt = 0;
    cr_assert(mpz_sgn(z) >= 0);
    cr_assert(mpz_sizeinbase(z, 2) <= (size_t)(64 * n), "value too large");
    memset(l, 0, sizeof(uint64_t) * (size_t)n);
    mpz_export(l, &cnt, -1, sizeof(uint64_t), 0, 0, z);
}

static void ref_add_edge(struct ref *r, const mpz_t v)
{
    mpz_to_limbs(r->edge[r->n_edge++], v, r->n);
}

static void ref_init(struct ref *r, const struct fld *f)
{
    r->f = f;
    r->n = f->limbs;
    r->w = f->limbs * f->degree;
    mpz_inits(r->p, r->R, r->Rinv, r->tmp, NULL);
    cr_assert_eq(mpz_set_str(r->p, f->p_str, 0), 0);
    mpz_setbit(r->R, (mp_bitcnt_t)(64 * r->n));
    cr_assert(mpz_invert(r->Rinv, r->R, r->p));
    /* raw edge values: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p
     * (Montgomery one), R^-1 mod p (Montgomery form of... standard 1's
     * raw preimage), 2^64 */
    mpz_t v;
    mpz_init(v);
    r->n_edge = 0;
    mpz_set_ui(v, 0); ref_add_edge(r, v);
    mpz_set_ui(v, 1); ref_add_edge(r, v);
    mpz_set_ui(v, 2); ref_add_edge(r, v);
    mpz_sub_ui(v, r->p, 1); ref_add_edge(r, v);
    mpz_sub_ui(v, r->p, 2); ref_add_edge(r, v);
    mpz_sub_ui(v, r->p, 1); mpz_fdiv_q_2exp(v, v, 1); ref_add_edge(r, v);
    mpz_add_ui(v, v, 1); ref_add_edge(r, v);
    mpz_mod(v, r->R, r->p); ref_add_edge(r, v);
    ref_add_edge(r, r->Rinv);
    mpz_set_ui(v, 1); mpz_mul_2exp(v, v, 64); ref_add_edge(r, v);
    mpz_clear(v);
}

static void ref_clear(struct ref *r)
{
    mpz_clears(r->p, r->R, r->Rinv, r->tmp, NULL);
}

/* Random raw component < p (uniform enough: rejection on the top limb). */
static void ref_rand_comp(const struct ref *r, uint64_t *l)
{
    int top = (int)mpz_sizeinbase(r->p, 2) - 64 * (r->n - 1);
    uint64_t mask = top >= 64 ? ~0ULL : ((1ULL << top) - 1);
    for (;;) {
        for (int i = 0; i < r->n; i++)
            l[i] = ft_rand64();
        l[r->n - 1] &= mask;
        if (r->f->degree == 2 || r->f->is_canonical == NULL) {
            /* no is_canonical wrapper for Fp2: compare with GMP */
            mpz_t z;
            mpz_init(z);
            limbs_to_mpz(z, l, r->n);
            int ok = mpz_cmp(z, r->p) < 0;
            mpz_clear(z);
            if (ok)
                return;
        } else if (r->f->is_canonical(l)) {
            return;
        }
    }
}

/* Element for iteration it: the first n_edge^2 iterations of a two-operand
 * test combine edge values (which = 0: first operand, 1: second); later
 * ones use random components, with an edge value 1 time in 8. */
static void ref_elem(const struct ref *r, int it, int which, uint64_t *out)
{
    int ne = r->n_edge;
    for (int c = 0; c < r->f->degree; c++) {
        uint64_t *l = out + c * r->n;
        if (it < ne * ne) {
            int idx = which ? it % ne : it / ne;
            if (c == 1) /* second component: another edge pattern */
                idx = (idx * 7 + 3 + which) % ne;
            memcpy(l, r->edge[idx], sizeof(uint64_t) * (size_t)r->n);
        } else if ((ft_rand64() & 7) == 0) {
            memcpy(l, r->edge[ft_rand64() % (uint64_t)ne],
                   sizeof(uint64_t) * (size_t)r->n);
        } else {
            ref_rand_comp(r, l);
        }
    }
}

/* Standard-form values (one mpz per component) <-> raw Montgomery limbs. */
static void raw_to_std(const struct ref *r, mpz_t *v, const uint64_t *raw)
{
    for (int c = 0; c < r->f->degree; c++) {
        limbs_to_mpz(v[c], raw + c * r->n, r->n);
        cr_assert(mpz_cmp(v[c], r->p) < 0, "%s: output not reduced",
                  r->f->name);
        mpz_mul(v[c], v[c], r->Rinv);
        mpz_mod(v[c], v[c], r->p);
    }
}

static void std_to_raw(const struct ref *r, uint64_t *raw, mpz_t *v)
{
    mpz_t t;
    mpz_init(t);
    for (int c = 0; c < r->f->degree; c++) {
        mpz_mod(t, v[c], r->p);
        mpz_mul(t, t, r->R);
        mpz_mod(t, t, r->p);
        mpz_to_limbs(raw + c * r->n, t, r->n);
    }
    mpz_clear(t);
}

enum ft_op { OP_ADD, OP_SUB, OP_MUL, OP_ADD_B, OP_SUB_B, OP_MUL_B, OP_SQR,
             OP_NEG, OP_DBL, OP_INV, OP_INV_VT };

static const char *const ft_op_name[] = {
    "add", "sub", "mul", "add(ret=b)", "sub(ret=b)", "mul(ret=b)",
    "sqr", "neg", "dbl", "inv", "inv_vartime"};

/* Reference result e = op(a, b) in standard form (b unused for unary). */
static void ref_op(const struct ref *r, enum ft_op op, mpz_t *e, mpz_t *a,
                   mpz_t *b)
{
    const mpz_t *p = &r->p;
    mpz_t t0, t1, t2;
    mpz_inits(t0, t1, t2, NULL);
    int d = r->f->degree;
    switch (op) {
    case OP_ADD:
    case OP_ADD_B:
        for (int c = 0; c < d; c++)
            mpz_add(e[c], a[c], b[c]);
        break;
    case OP_SUB:
    case OP_SUB_B:
        for (int c = 0; c < d; c++)
            mpz_sub(e[c], a[c], b[c]);
        break;
    case OP_NEG:
        for (int c = 0; c < d; c++)
            mpz_neg(e[c], a[c]);
        break;
    case OP_DBL:
        for (int c = 0; c < d; c++)
            mpz_mul_2exp(e[c], a[c], 1);
        break;
    case OP_SQR:
        b = a;
        /* fall through */
    case OP_MUL:
    case OP_MUL_B:
        if (d == 1) {
            mpz_mul(e[0], a[0], b[0]);
        } else { /* (a0 + a1 u)(b0 + b1 u), u^2 = -1 */
            mpz_mul(t0, a[0], b[0]);
            mpz_mul(t1, a[1], b[1]);
            mpz_mul(t2, a[0], b[1]);
            mpz_addmul(t2, a[1], b[0]);
            mpz_sub(e[0], t0, t1);
            mpz_set(e[1], t2);
        }
        break;
    case OP_INV:
    case OP_INV_VT:
        if (d == 1) {
            if (mpz_sgn(a[0]) == 0)
                mpz_set_ui(e[0], 0);
            else
                cr_assert(mpz_invert(e[0], a[0], *p));
        } else { /* conj(a) / (a0^2 + a1^2) */
            mpz_mul(t0, a[0], a[0]);
            mpz_addmul(t0, a[1], a[1]);
            mpz_mod(t0, t0, *p);
            if (mpz_sgn(t0) == 0) {
                mpz_set_ui(e[0], 0);
                mpz_set_ui(e[1], 0);
            } else {
                cr_assert(mpz_invert(t0, t0, *p));
                mpz_mul(e[0], a[0], t0);
                mpz_mul(e[1], a[1], t0);
                mpz_neg(e[1], e[1]);
            }
        }
        break;
    }
    for (int c = 0; c < d; c++)
        mpz_mod(e[c], e[c], *p);
    mpz_clears(t0, t1, t2, NULL);
}

static void ft_fail(const struct ref *r, const char *what, int it,
                    const uint64_t *a, const uint64_t *b, const uint64_t *got)
{
    char buf[1024];
    int off = snprintf(buf, sizeof buf, "%s %s it=%d a=", r->f->name, what,
                       it);
    for (int i = r->w - 1; i >= 0 && off < 900; i--)
        off += snprintf(buf + off, sizeof buf - (size_t)off, "%016llx",
                        (unsigned long long)a[i]);
    if (b) {
        off += snprintf(buf + off, sizeof buf - (size_t)off, " b=");
        for (int i = r->w - 1; i >= 0 && off < 900; i--)
            off += snprintf(buf + off, sizeof buf - (size_t)off, "%016llx",
                            (unsigned long long)b[i]);
    }
    off += snprintf(buf + off, sizeof buf - (size_t)off, " got=");
    for (int i = r->w - 1; i >= 0 && off < 1000; i--)
        off += snprintf(buf + off, sizeof buf - (size_t)off, "%016llx",
                        (unsigned long long)got[i]);
    cr_assert_fail("%s", buf);
}

/* Runs op on edge combinations plus FT_ITERS random operand sets. */
static void run_op(const struct fld *f, enum ft_op op, uint64_t seed)
{
    struct ref r;
    ref_init(&r, f);
    ft_seed(seed);
    mpz_t a[2], b[2], e[2], g[2];
    for (int c = 0; c < 2; c++)
        mpz_inits(a[c], b[c], e[c], g[c], NULL);
    int binary = op <= OP_MUL_B;
    int total = r.n_edge * r.n_edge + FT_ITERS;
    for (int it = 0; it < total; it++) {
        uint64_t ra[FT_MAXW], rb[FT_MAXW], got[FT_MAXW], want[FT_MAXW];
        ref_elem(&r, it, 0, ra);
        ref_elem(&r, it, 1, rb);
        if (!binary && it < r.n_edge * r.n_edge && it % r.n_edge)
            continue; /* unary ops: each edge value once */
        switch (op) {
        case OP_ADD: f->add(got, ra, rb); break;
        case OP_SUB: f->sub(got, ra, rb); break;
        case OP_MUL: f->mul(got, ra, rb); break;
        case OP_ADD_B: f->add_b(got, ra, rb); break;
        case OP_SUB_B: f->sub_b(got, ra, rb); break;
        case OP_MUL_B: f->mul_b(got, ra, rb); break;
        case OP_SQR: f->sqr(got, ra); break;
        case OP_NEG: f->neg(got, ra); break;
        case OP_DBL: f->dbl(got, ra); break;
        case OP_INV: f->inv(got, ra); break;
        case OP_INV_VT: f->inv_vt(got, ra); break;
        }
        raw_to_std(&r, a, ra);
        raw_to_std(&r, b, rb);
        ref_op(&r, op, e, a, b);
        std_to_raw(&r, want, e);
        if (memcmp(got, want, sizeof(uint64_t) * (size_t)r.w))
            ft_fail(&r, ft_op_name[op], it, ra, binary ? rb : NULL, got);
        /* the result must also decode (i.e. be reduced) */
        raw_to_std(&r, g, got);
    }
    for (int c = 0; c < 2; c++)
        mpz_clears(a[c], b[c], e[c], g[c], NULL);
    ref_clear(&r);
}

/* Constants vs GMP: p, R mod p, R^2 mod p, n0 * p == -1 mod 2^64, the byte
 * sizes and (scalar fields) the root of unity. */
static void check_constants(const struct fld *f)
{
    struct ref r;
    ref_init(&r, f);
    uint64_t want[6];
    mpz_t t, m64;
    mpz_inits(t, m64, NULL);

    mpz_to_limbs(want, r.p, r.n);
    cr_assert(!memcmp(f->modulus, want, 8 * (size_t)r.n), "%s: p", f->name);
    cr_assert(mpz_sizeinbase(r.p, 2) > (size_t)(64 * (r.n - 1)),
              "%s: limb count", f->name);
    cr_assert(mpz_probab_prime_p(r.p, 30), "%s: p not prime", f->name);

    mpz_mod(t, r.R, r.p);
    mpz_to_limbs(want, t, r.n);
    cr_assert(!memcmp(f->mont_one, want, 8 * (size_t)r.n), "%s: R mod p",
              f->name);

    mpz_mul(t, r.R, r.R);
    mpz_mod(t, t, r.p);
    mpz_to_limbs(want, t, r.n);
    cr_assert(!memcmp(f->r2, want, 8 * (size_t)r.n), "%s: R^2 mod p",
              f->name);

    mpz_set_ui(m64, 1);
    mpz_mul_2exp(m64, m64, 64);
    mpz_set_ui(t, f->n0);
    mpz_mul(t, t, r.p);
    mpz_add_ui(t, t, 1);
    mpz_mod(t, t, m64);
    cr_assert(mpz_sgn(t) == 0, "%s: n0 * p != -1 mod 2^64", f->name);

    if (f->bytes)
        cr_assert_eq(f->bytes, 8 * r.n, "%s: BYTES", f->name);

    /* set_one / set_zero / is_zero / eq */
    uint64_t one[FT_MAXW], zero[FT_MAXW], ex[FT_MAXW];
    f->set_one(one);
    f->set_zero(zero);
    memset(ex, 0, sizeof ex);
    memcpy(ex, f->mont_one, 8 * (size_t)r.n);
    cr_assert(!memcmp(one, ex, 8 * (size_t)r.w), "%s: set_one", f->name);
    memset(ex, 0, sizeof ex);
    cr_assert(!memcmp(zero, ex, 8 * (size_t)r.w), "%s: set_zero", f->name);
    cr_assert(f->is_zero(zero) && !f->is_zero(one), "%s: is_zero", f->name);
    cr_assert(f->eq(one, one) && !f->eq(one, zero), "%s: eq", f->name);
    if (f->degree == 2) { /* u^2 == -1 */
        uint64_t u[FT_MAXW], m1[FT_MAXW];
        f->set_zero(u);
        memcpy(u + r.n, f->mont_one, 8 * (size_t)r.n);
        f->sqr(u, u);
        f->neg(m1, one);
        cr_assert(f->eq(u, m1), "%s: u^2 != -1", f->name);
    }

    if (f->two_adicity) {
        /* p - 1 = 2^s t with t odd, and the root of unity is
         * nqr^t for the smallest quadratic non-residue nqr. */
        mpz_t tt, w, nqr;
        mpz_inits(tt, w, nqr, NULL);
        mpz_sub_ui(tt, r.p, 1);
        cr_assert_eq(mpz_scan1(tt, 0), (mp_bitcnt_t)f->two_adicity,
                     "%s: two-adicity", f->name);
        mpz_fdiv_q_2exp(tt, tt, (mp_bitcnt_t)f->two_adicity);
        mpz_set_ui(nqr, 2);
        while (mpz_legendre(nqr, r.p) != -1)
            mpz_add_ui(nqr, nqr, 1);
        mpz_powm(w, nqr, tt, r.p);
        mpz_mul(w, w, r.R);
        mpz_mod(w, w, r.p);
        mpz_to_limbs(want, w, r.n);
        cr_assert(!memcmp(f->root, want, 8 * (size_t)r.n), "%s: root",
                  f->name);
        /* primitive: w^(2^(s-1)) == -1 */
        uint64_t x[6], m1[6];
        memcpy(x, f->root, 8 * (size_t)r.n);
        for (int i = 0; i < f->two_adicity - 1; i++)
            f->sqr(x, x);
        f->neg(m1, one);
        cr_assert(f->eq(x, m1), "%s: root not primitive", f->name);
        mpz_clears(tt, w, nqr, NULL);
    }
    mpz_clears(t, m64, NULL);
    ref_clear(&r);
}

/* to_mont(x) == x R mod p and from_mont(x) == x R^-1 mod p on raw values;
 * round trips; from_u64. */
static void check_mont(const struct fld *f, uint64_t seed)
{
    struct ref r;
    ref_init(&r, f);
    ft_seed(seed);
    mpz_t x, e;
    mpz_inits(x, e, NULL);
    for (int it = 0; it < r.n_edge + FT_ITERS; it++) {
        uint64_t a[FT_MAXW], got[FT_MAXW], want[FT_MAXW], back[FT_MAXW];
        ref_elem(&r, it < r.n_edge ? it * r.n_edge : it + r.n_edge * r.n_edge,
                 0, a);
        f->to_mont(got, a);
        for (int c = 0; c < f->degree; c++) {
            limbs_to_mpz(x, a + c * r.n, r.n);
            mpz_mul(e, x, r.R);
            mpz_mod(e, e, r.p);
            mpz_to_limbs(want + c * r.n, e, r.n);
        }
        if (memcmp(got, want, 8 * (size_t)r.w))
            ft_fail(&r, "to_mont", it, a, NULL, got);
        f->from_mont(back, got);
        cr_assert(!memcmp(back, a, 8 * (size_t)r.w), "%s: round trip",
                  f->name);
        f->from_mont(got, a);
        for (int c = 0; c < f->degree; c++) {
            limbs_to_mpz(x, a + c * r.n, r.n);
            mpz_mul(e, x, r.Rinv);
            mpz_mod(e, e, r.p);
            mpz_to_limbs(want + c * r.n, e, r.n);
        }
        if (memcmp(got, want, 8 * (size_t)r.w))
            ft_fail(&r, "from_mont", it, a, NULL, got);
    }
    if (f->from_u64) {
        for (int it = 0; it < 100; it++) {
            uint64_t v = it < 3 ? (uint64_t)it : ft_rand64();
            uint64_t got[FT_MAXW], want[FT_MAXW];
            f->from_u64(got, v);
            mpz_set_ui(x, 0);
            mpz_import(x, 1, -1, 8, 0, 0, &v);
            mpz_mul(e, x, r.R);
            mpz_mod(e, e, r.p);
            mpz_to_limbs(want, e, r.n);
            cr_assert(!memcmp(got, want, 8 * (size_t)r.n), "%s: from_u64",
                      f->name);
        }
    }
    mpz_clears(x, e, NULL);
    ref_clear(&r);
}

/* pow vs mpz_powm, exponents of 0 .. limbs+1 limbs and edge exponents. */
static void check_pow(const struct fld *f, uint64_t seed)
{
    struct ref r;
    ref_init(&r, f);
    ft_seed(seed);
    mpz_t a, e, x;
    mpz_inits(a, e, x, NULL);
    for (int it = 0; it < FT_ITERS + r.n_edge * r.n_edge; it++) {
        uint64_t base[6], exp[8], got[6], want[6];
        size_t nexp;
        ref_elem(&r, it, 0, base);
        if (it < r.n_edge * r.n_edge) { /* edge exponents */
            nexp = (size_t)r.n;
            memcpy(exp, r.edge[it % r.n_edge], 8 * nexp);
        } else {
            nexp = (size_t)(ft_rand64() % (uint64_t)(r.n + 2));
            for (size_t i = 0; i < nexp; i++)
                exp[i] = ft_rand64();
            if (nexp && (it & 3) == 0) /* short exponents too */
                exp[nexp - 1] >>= ft_rand64() % 64;
        }
        f->pow(got, base, exp, nexp);
        raw_to_std(&r, &a, base);
        mpz_set_ui(x, 0);
        if (nexp)
            mpz_import(x, nexp, -1, 8, 0, 0, exp);
        mpz_powm(e, a, x, r.p);
        std_to_raw(&r, want, &e);
        if (memcmp(got, want, 8 * (size_t)r.n))
            ft_fail(&r, "pow", it, base, exp, got);
    }
    mpz_clears(a, e, x, NULL);
    ref_clear(&r);
}

/* from_bytes / to_bytes: round trip, little-endian layout, rejection of
 * values >= p (ret untouched), is_canonical. */
static void check_bytes(const struct fld *f, uint64_t seed)
{
    struct ref r;
    ref_init(&r, f);
    ft_seed(seed);
    int nb = 8 * r.n;
    mpz_t z;
    mpz_init(z);
    for (int it = 0; it < FT_ITERS; it++) {
        uint64_t a[6], got[6];
        uint8_t buf[48];
        ref_elem(&r, it, 0, a);
        f->to_bytes(buf, a);
        for (int i = 0; i < nb; i++)
            cr_assert_eq(buf[i], (uint8_t)(a[i / 8] >> (8 * (i % 8))));
        memset(got, 0xee, sizeof got);
        cr_assert_eq(f->from_bytes(got, buf), 0, "%s: canonical rejected",
                     f->name);
        cr_assert(!memcmp(got, a, 8 * (size_t)r.n));
        cr_assert(f->is_canonical(a));
    }
    /* values >= p: p, p+1, p + random, 2^(64n) - 1 */
    for (int it = 0; it < 200; it++) {
        uint64_t l[6], got[6], keep[6];
        uint8_t buf[48];
        if (it == 0) {
            mpz_set(z, r.p);
        } else if (it == 1) {
            mpz_add_ui(z, r.p, 1);
        } else if (it == 2) {
            mpz_set(z, r.R);
            mpz_sub_ui(z, z, 1);
        } else {
            uint64_t d[6];
            ref_rand_comp(&r, d);
            limbs_to_mpz(z, d, r.n);
            mpz_add(z, z, r.p);
            if (mpz_cmp(z, r.R) >= 0)
                continue;
        }
        mpz_to_limbs(l, z, r.n);
        for (int i = 0; i < nb; i++)
            buf[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
        for (int i = 0; i < 6; i++)
            keep[i] = got[i] = 0x1234567800000000ULL + (uint64_t)i;
        cr_assert_eq(f->from_bytes(got, buf), -1, "%s: non-canonical "
                     "accepted (it %d)", f->name, it);
        cr_assert(!memcmp(got, keep, sizeof got), "%s: ret modified",
                  f->name);
        cr_assert(!f->is_canonical(l));
    }
    mpz_clear(z);
    ref_clear(&r);
}

/* Aliasing: ret == a == b for mul/add/sub, and a chain of mixed identities
 * (a + b - b == a, (a*b)/b == a, a*a == sqr(a), a + a == dbl(a)). */
static void check_identities(const struct fld *f, uint64_t seed)
{
    struct ref r;
    ref_init(&r, f);
    ft_seed(seed);
    for (int it = 0; it < FT_ITERS; it++) {
        uint64_t a[FT_MAXW], b[FT_MAXW], x[FT_MAXW], y[FT_MAXW];
        ref_elem(&r, it + r.n_edge * r.n_edge, 0, a);
        ref_elem(&r, it + r.n_edge * r.n_edge, 1, b);
        f->add(x, a, b);
        f->sub(x, x, b);
        cr_assert(f->eq(x, a), "%s: a + b - b", f->name);
        f->mul(x, a, a);
        f->sqr(y, a);
        cr_assert(f->eq(x, y), "%s: a*a vs sqr", f->name);
        f->add(x, a, a);
        f->dbl(y, a);
        cr_assert(f->eq(x, y), "%s: a+a vs dbl", f->name);
        f->neg(x, a);
        f->add(x, x, a);
        cr_assert(f->is_zero(x), "%s: a + (-a)", f->name);
        if (!f->is_zero(b)) {
            f->inv(y, b);
            f->mul(x, a, b);
            f->mul(x, x, y);
            cr_assert(f->eq(x, a), "%s: a*b/b", f->name);
            f->mul(x, b, y);
            uint64_t one[FT_MAXW];
            f->set_one(one);
            cr_assert(f->eq(x, one), "%s: b * b^-1", f->name);
        }
    }
    ref_clear(&r);
}

/* ------------------------------------------------------------- tests */

#define FIELD_TESTS(suite, F, seed)                                        \
    Test(suite, constants) { check_constants(&F); }                        \
    Test(suite, add) { run_op(&F, OP_ADD, (seed) + 1); }                   \
    Test(suite, sub) { run_op(&F, OP_SUB, (seed) + 2); }                   \
    Test(suite, neg) { run_op(&F, OP_NEG, (seed) + 3); }                   \
    Test(suite, dbl) { run_op(&F, OP_DBL, (seed) + 4); }                   \
    Test(suite, mul) { run_op(&F, OP_MUL, (seed) + 5); }                   \
    Test(suite, alias_b)                                                   \
    {                                                                      \
        run_op(&F, OP_ADD_B, (seed) + 13);                                 \
        run_op(&F, OP_SUB_B, (seed) + 14);                                 \
        run_op(&F, OP_MUL_B, (seed) + 6);                                  \
    }                                                                      \
    Test(suite, sqr) { run_op(&F, OP_SQR, (seed) + 7); }                   \
    Test(suite, inv) { run_op(&F, OP_INV, (seed) + 8); }                   \
    Test(suite, inv_vartime) { run_op(&F, OP_INV_VT, (seed) + 15); }       \
    Test(suite, mont) { check_mont(&F, (seed) + 9); }                      \
    Test(suite, identities) { check_identities(&F, (seed) + 10); }

#define PRIME_FIELD_TESTS(suite, F, seed)                                  \
    FIELD_TESTS(suite, F, seed)                                            \
    Test(suite, pow) { check_pow(&F, (seed) + 11); }                       \
    Test(suite, bytes) { check_bytes(&F, (seed) + 12); }

PRIME_FIELD_TESTS(field_bn254_fr, fld_bn254_fr, 0x1000)
PRIME_FIELD_TESTS(field_bn254_fp, fld_bn254_fp, 0x2000)
FIELD_TESTS(field_bn254_fp2, fld_bn254_fp2, 0x3000)
PRIME_FIELD_TESTS(field_bls12381_fr, fld_bls12381_fr, 0x4000)
PRIME_FIELD_TESTS(field_bls12381_fp, fld_bls12381_fp, 0x5000)
FIELD_TESTS(field_bls12381_fp2, fld_bls12381_fp2, 0x6000)
PRIME_FIELD_TESTS(field_generic_p256, fld_p256, 0x7000)

/* Fp2-specific: mul_by_base, conj and the ret-aliasing of mul_by_base with
 * k pointing into ret. */
#define FP2_EXTRA_TESTS(suite, E, B, FLD, seed)                            \
    Test(suite, mul_by_base_conj)                                          \
    {                                                                      \
        struct ref r;                                                      \
        ref_init(&r, &FLD);                                                \
        ft_seed(seed);                                                     \
        for (int it = 0; it < FT_ITERS; it++) {                            \
            E##_t a, x, y, kk;                                             \
            B##_t k;                                                       \
            uint64_t raw[FT_MAXW];                                         \
            ref_elem(&r, it, 0, raw);                                      \
            memcpy(&a, raw, sizeof a);                                     \
            ref_elem(&r, it, 1, raw);                                      \
            memcpy(&k, raw, sizeof k);                                     \
            E##_mul_by_base(&x, &a, &k);                                   \
            kk.c0 = k;                                                     \
            B##_set_zero(&kk.c1);                                          \
            E##_mul(&y, &a, &kk);                                          \
            cr_assert(E##_eq(&x, &y), "mul_by_base");                      \
            y = a;                                                         \
            E##_mul_by_base(&y, &y, &y.c0);                                \
            B##_mul(&x.c0, &a.c0, &a.c0);                                  \
            B##_mul(&x.c1, &a.c1, &a.c0);                                  \
            cr_assert(E##_eq(&x, &y), "mul_by_base aliasing k");           \
            E##_conj(&x, &a);                                              \
            E##_mul(&y, &a, &x); /* norm: c1 == 0 */                       \
            cr_assert(B##_is_zero(&y.c1), "conj");                         \
            E##_from_mont(&x, &a);                                         \
            E##_to_mont(&x, &x);                                           \
            cr_assert(E##_eq(&x, &a), "fp2 mont round trip");              \
        }                                                                  \
        ref_clear(&r);                                                     \
    }

FP2_EXTRA_TESTS(field_bn254_fp2, bn254_fp2, bn254_fp, fld_bn254_fp2, 0x3100)
FP2_EXTRA_TESTS(field_bls12381_fp2, bls12381_fp2, bls12381_fp,
                fld_bls12381_fp2, 0x6100)

/* ------------------------------------------- mulx/adx vs portable path */

/* limb_have_adx() follows cpuid (gcc's own detection, not limb_x86.c's)
 * and $SLOTPROVE_NO_ADX. */
Test(field_dispatch, adx_flag)
{
    const char *no = getenv("SLOTPROVE_NO_ADX");
    int want = 0;
#if LIMB_ADX
    __builtin_cpu_init();
    want = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx") &&
           !(no && *no);
#else
    (void)no;
#endif
    cr_assert_eq(limb_have_adx(), want, "limb_have_adx() = %d, cpuid/env say %d",
                 limb_have_adx(), want);
    cr_assert_eq(bn254_fp_uses_adx(), want);
    cr_assert_eq(bls12381_fp_uses_adx(), want);
    cr_assert_eq(tf_p256_uses_adx(), 0, "full-width modulus: portable only");
}

/* mul / sqr (whichever path is active) agree with the portable mul_c and
 * sqr_c on random and edge inputs, so one run compares both paths; the
 * GMP suites above check each path on its own (make test runs them again
 * with SLOTPROVE_NO_ADX=1). */
#define CROSS_TEST(F, seed)                                                \
    Test(field_dispatch, cross_##F)                                        \
    {                                                                      \
        ft_seed(seed);                                                     \
        for (int it = 0; it < 20000; it++) {                               \
            F##_t a, b, x, y;                                              \
            for (size_t i = 0; i < sizeof a.l / 8; i++) {                  \
                a.l[i] = it < 4 ? F##_modulus.l[i] - (i == 0) * (uint64_t)(it + 1) \
                                : ft_rand64();                             \
                b.l[i] = ft_rand64();                                      \
            }                                                              \
            a.l[sizeof a.l / 8 - 1] %= F##_modulus.l[sizeof a.l / 8 - 1];  \
            b.l[sizeof b.l / 8 - 1] %= F##_modulus.l[sizeof b.l / 8 - 1];  \
            F##_mul(&x, &a, &b);                                           \
            F##_mul_c(&y, &a, &b);                                         \
            cr_assert(F##_eq(&x, &y), #F ": mul vs mul_c, it %d", it);     \
            F##_sqr(&x, &a);                                               \
            F##_sqr_c(&y, &a);                                             \
            cr_assert(F##_eq(&x, &y), #F ": sqr vs sqr_c, it %d", it);     \
            F##_mul_c(&y, &a, &a);                                         \
            cr_assert(F##_eq(&x, &y), #F ": sqr vs mul_c(a, a), it %d", it); \
            /* Fp2 halves: (a + b u)(b + w u), u^2 = -1, w = a^2 */          \
            F##_t c0, c1, e0, e1, t, w = x;                                \
            F##_mul_c(&e0, &a, &b);                                        \
            F##_mul_c(&t, &b, &w);                                         \
            F##_sub(&e0, &e0, &t);                                         \
            F##_mul_c(&e1, &a, &w);                                        \
            F##_mul_c(&t, &b, &b);                                         \
            F##_add(&e1, &e1, &t);                                         \
            F##_mul2_karatsuba(&c0, &c1, &a, &b, &b, &w);                  \
            cr_assert(F##_eq(&c0, &e0) && F##_eq(&c1, &e1),                \
                      #F ": mul2_karatsuba, it %d", it);                   \
            c0 = a, c1 = b; /* outputs aliasing the inputs */              \
            F##_mul2_karatsuba(&c0, &c1, &c0, &c1, &c1, &w);               \
            cr_assert(F##_eq(&c0, &e0) && F##_eq(&c1, &e1),                \
                      #F ": mul2_karatsuba aliased, it %d", it);           \
        }                                                                  \
    }
CROSS_TEST(bn254_fr, 0x8001)
CROSS_TEST(bn254_fp, 0x8002)
CROSS_TEST(bls12381_fr, 0x8003)
CROSS_TEST(bls12381_fp, 0x8004)
CROSS_TEST(tf_p256, 0x8005)
