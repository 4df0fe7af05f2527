/*
 * field_tmpl.h - Montgomery prime-field "template" (no include guard on
 * purpose: include it once per field).
 *
 * Before including, define:
 *   FIELD        name prefix, e.g. bn254_fr
 *   FIELD_LIMBS  number of 64-bit limbs (4 or 6)
 *   FIELD_P      modulus p, brace initializer of little-endian u64 limbs
 *   FIELD_ONE    R mod p (R = 2^(64*FIELD_LIMBS)), brace initializer
 *   FIELD_R2     R^2 mod p, brace initializer
 *   FIELD_N0     -p^-1 mod 2^64, a u64 constant
 * All six macros are #undef'd at the end of this file.
 *
 * Generated (with FIELD = F):
 *   typedef struct { uint64_t l[FIELD_LIMBS]; } F_t;
 *   static const F_t F_modulus, F_mont_one, F_r2;  static const uint64_t F_n0;
 *   static functions F_xxx(ret, ...) documented below (all inline except
 *   F_mul, kept out of line on purpose, see TMPL_NOINLINE in limb.h).
 *
 * Conventions: values are little-endian limbs, fully reduced (< p) on input
 * and output; "Montgomery form" of x is x*R mod p, "standard form" is x.
 * Result pointer first; ret may alias any input. Nothing allocates.
 * Arithmetic is branch-free except _pow/_inv (which branch on the exponent
 * bits, public here) and the constant-folded choice of the CIOS variant.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "limb.h"
#include "limb_inv.h"

#if !defined(FIELD) || !defined(FIELD_LIMBS) || !defined(FIELD_P) ||         \
    !defined(FIELD_ONE) || !defined(FIELD_R2) || !defined(FIELD_N0)
#error "field_tmpl.h: define FIELD, FIELD_LIMBS, FIELD_P, FIELD_ONE, FIELD_R2, FIELD_N0"
#endif

#define FT_N FIELD_LIMBS
#define FT_T TMPL_CAT(FIELD, _t)
#define FT_(name) TMPL_CAT(FIELD, _##name)

typedef struct {
    uint64_t l[FIELD_LIMBS];
} FT_T;

/* The modulus p (standard form limbs). */
static const FT_T FT_(modulus) = {FIELD_P};
/* R mod p: Montgomery form of 1. */
static const FT_T FT_(mont_one) = {FIELD_ONE};
/* R^2 mod p: to_mont multiplies by this. */
static const FT_T FT_(r2) = {FIELD_R2};
/* -p^-1 mod 2^64. */
static const uint64_t FT_(n0) = FIELD_N0;

/* ret = 0. */
static inline void FT_(set_zero)(FT_T *ret)
{
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        ret->l[i] = 0;
}

/* ret = 1 in Montgomery form (R mod p). */
static inline void FT_(set_one)(FT_T *ret)
{
    *ret = FT_(mont_one);
}

/* ret = a. */
static inline void FT_(copy)(FT_T *ret, const FT_T *a)
{
    *ret = *a;
}

/* 1 if a == 0, else 0 (any form). */
static inline int FT_(is_zero)(const FT_T *a)
{
    uint64_t acc = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        acc |= a->l[i];
    return (int)(limb_nonzero(acc) ^ 1);
}

/* 1 if a == b, else 0 (both reduced, same form). */
static inline int FT_(eq)(const FT_T *a, const FT_T *b)
{
    uint64_t acc = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        acc |= a->l[i] ^ b->l[i];
    return (int)(limb_nonzero(acc) ^ 1);
}

/* 1 if a is Montgomery one, else 0. */
static inline int FT_(is_one)(const FT_T *a)
{
    return FT_(eq)(a, &FT_(mont_one));
}

/* Internal: ret = t - p if (hi:t) >= p else t, where hi:t < 2p
 * (hi is an extra top bit, 0 or 1). */
static inline void FT_(reduce_once_)(FT_T *ret, const uint64_t *t, uint64_t hi)
{
    uint64_t s[FT_N], bw = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        s[i] = limb_sbb(t[i], FT_(modulus).l[i], &bw);
    /* keep t iff there was no top carry and t - p borrowed */
    uint64_t keep = limb_mask(bw & (hi ^ 1));
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        ret->l[i] = limb_select(keep, t[i], s[i]);
}

/* ret = a + b mod p (any form, both operands in the same form). */
static inline void FT_(add)(FT_T *ret, const FT_T *a, const FT_T *b)
{
    uint64_t t[FT_N], c = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        t[i] = limb_adc(a->l[i], b->l[i], &c);
    FT_(reduce_once_)(ret, t, c);
}

/* ret = 2a mod p (any form). */
static inline void FT_(dbl)(FT_T *ret, const FT_T *a)
{
    FT_(add)(ret, a, a);
}

/* ret = a - b mod p (any form). */
static inline void FT_(sub)(FT_T *ret, const FT_T *a, const FT_T *b)
{
    uint64_t t[FT_N], bw = 0, c = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        t[i] = limb_sbb(a->l[i], b->l[i], &bw);
    uint64_t m = limb_mask(bw);
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        ret->l[i] = limb_adc(t[i], FT_(modulus).l[i] & m, &c);
}

/* ret = -a mod p (any form; -0 = 0). */
static inline void FT_(neg)(FT_T *ret, const FT_T *a)
{
    uint64_t t[FT_N], bw = 0, acc = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++) {
        acc |= a->l[i];
        t[i] = limb_sbb(FT_(modulus).l[i], a->l[i], &bw);
    }
    uint64_t m = limb_mask(limb_nonzero(acc));
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        ret->l[i] = t[i] & m;
}

/* The portable C Montgomery product (same contract as F_mul below), used
 * where the CPU lacks BMI2/ADX or $SLOTPROVE_NO_ADX is set. CIOS, fully
 * reduced. */
static TMPL_NOINLINE void FT_(mul_c)(FT_T *ret, const FT_T *a,
                                      const FT_T *b)
{
    /* The top limb of p is a compile-time constant, so this test folds.
     * When the top bit of p is clear (p < R/2) the running sum t < 2p always
     * fits in N words and the carries of the two chains add up within one
     * limb ("no-carry" CIOS); otherwise use the generic variant. */
    if (FT_(modulus).l[FT_N - 1] < 0x7fffffffffffffffULL) {
        uint64_t t[FT_N];
        TMPL_UNROLL
        for (int j = 0; j < FT_N; j++)
            t[j] = 0;
        TMPL_UNROLL
        for (int i = 0; i < FT_N; i++) {
            uint64_t A = 0, C = 0, bi = b->l[i];
            t[0] = limb_mac(t[0], a->l[0], bi, &A);
            uint64_t m = t[0] * FT_(n0);
            (void)limb_mac(t[0], m, FT_(modulus).l[0], &C);
            TMPL_UNROLL
            for (int j = 1; j < FT_N; j++) {
                t[j] = limb_mac(t[j], a->l[j], bi, &A);
                t[j - 1] = limb_mac(t[j], m, FT_(modulus).l[j], &C);
            }
            t[FT_N - 1] = C + A;
        }
        FT_(reduce_once_)(ret, t, 0);
    } else {
        /* Generic CIOS with two extra words. */
        uint64_t t[FT_N + 2];
        TMPL_UNROLL
        for (int j = 0; j < FT_N + 2; j++)
            t[j] = 0;
        TMPL_UNROLL
        for (int i = 0; i < FT_N; i++) {
            uint64_t C = 0, c2 = 0, bi = b->l[i];
            TMPL_UNROLL
            for (int j = 0; j < FT_N; j++)
                t[j] = limb_mac(t[j], a->l[j], bi, &C);
            t[FT_N] = limb_adc(t[FT_N], C, &c2);
            t[FT_N + 1] = c2;
            uint64_t m = t[0] * FT_(n0);
            C = 0;
            (void)limb_mac(t[0], m, FT_(modulus).l[0], &C);
            TMPL_UNROLL
            for (int j = 1; j < FT_N; j++)
                t[j - 1] = limb_mac(t[j], m, FT_(modulus).l[j], &C);
            c2 = 0;
            t[FT_N - 1] = limb_adc(t[FT_N], C, &c2);
            t[FT_N] = t[FT_N + 1] + c2;
        }
        FT_(reduce_once_)(ret, t, t[FT_N]);
    }
}

/* 1 if this field's products take the mulx/adcx/adox path (x86-64 with
 * BMI2 + ADX, $SLOTPROVE_NO_ADX unset, 4 or 6 limbs, p < R/2), else 0. */
static inline int FT_(uses_adx)(void)
{
    return (FT_N == 4 || FT_N == 6) &&
           FT_(modulus).l[FT_N - 1] < 0x7fffffffffffffffULL && limb_have_adx();
}

/* ret = a * b * R^-1 mod p (Montgomery product; with both inputs in
 * Montgomery form the result is in Montgomery form), fully reduced. On
 * x86-64 with BMI2 + ADX: mont_adx.h's no-carry CIOS in assembly; else
 * F_mul_c. Not inlined (see TMPL_NOINLINE); unused copies are dropped. */
static TMPL_NOINLINE void FT_(mul)(FT_T *ret, const FT_T *a, const FT_T *b)
{
#if LIMB_ADX
    if (FT_(uses_adx)()) {
        uint64_t t[FT_N];
#if FIELD_LIMBS == 4
        limb_mont_mul_adx4(t, a->l, b->l, FT_(modulus).l, &FT_(n0));
#elif FIELD_LIMBS == 6
        limb_mont_mul_adx6(t, a->l, b->l, FT_(modulus).l, &FT_(n0));
#endif
        FT_(reduce_once_)(ret, t, 0);
        return;
    }
#endif
    FT_(mul_c)(ret, a, b);
}

/* The portable C Montgomery square (same contract as F_sqr). For p < R/2:
 * the 2N-limb square from N(N-1)/2 cross products (doubled) and N
 * diagonal ones, then Montgomery reduction of the low half alone,
 * u = (lo + m*p)/R <= p, and ret = u + hi (< 2p since hi < p^2/R < p/2),
 * reduced once: N(N+1)/2 + N^2 + N word products against CIOS's 2N^2 + N.
 * Other moduli: F_mul_c(a, a). */
static TMPL_NOINLINE void FT_(sqr_c)(FT_T *ret, const FT_T *a)
{
    if (!(FT_(modulus).l[FT_N - 1] < 0x7fffffffffffffffULL)) {
        FT_(mul_c)(ret, a, a);
        return;
    }
    uint64_t s[2 * FT_N], c, hi;
    TMPL_UNROLL
    for (int k = 0; k < 2 * FT_N; k++)
        s[k] = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N - 1; i++) { /* cross products a_i a_j, i < j */
        c = 0;
        TMPL_UNROLL
        for (int j = i + 1; j < FT_N; j++)
            s[i + j] = limb_mac(s[i + j], a->l[i], a->l[j], &c);
        s[i + FT_N] = c;
    }
    s[2 * FT_N - 1] = s[2 * FT_N - 2] >> 63; /* doubled */
    TMPL_UNROLL
    for (int k = 2 * FT_N - 2; k > 0; k--)
        s[k] = s[k] << 1 | s[k - 1] >> 63;
    s[0] <<= 1;
    c = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++) { /* plus the squares a_i^2 */
        uint64_t lo = limb_mul(a->l[i], a->l[i], &hi);
        s[2 * i] = limb_adc(s[2 * i], lo, &c);
        s[2 * i + 1] = limb_adc(s[2 * i + 1], hi, &c);
    }
    uint64_t t[FT_N]; /* Montgomery reduction of the low half */
    TMPL_UNROLL
    for (int j = 0; j < FT_N; j++)
        t[j] = s[j];
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++) {
        uint64_t m = t[0] * FT_(n0), C = 0;
        (void)limb_mac(t[0], m, FT_(modulus).l[0], &C);
        TMPL_UNROLL
        for (int j = 1; j < FT_N; j++)
            t[j - 1] = limb_mac(t[j], m, FT_(modulus).l[j], &C);
        t[FT_N - 1] = C;
    }
    c = 0;
    TMPL_UNROLL
    for (int j = 0; j < FT_N; j++)
        t[j] = limb_adc(t[j], s[FT_N + j], &c);
    FT_(reduce_once_)(ret, t, 0);
}

/* ret = a^2 * R^-1 mod p (Montgomery square), fully reduced. Where F_mul
 * takes the mulx/adcx/adox path: mont_adx.h's squaring for 4 limbs, the
 * product a*a for 6; else F_sqr_c. */
static TMPL_NOINLINE void FT_(sqr)(FT_T *ret, const FT_T *a)
{
#if LIMB_ADX
    if (FT_(uses_adx)()) {
#if FIELD_LIMBS == 4
        uint64_t t[FT_N];
        limb_mont_sqr_adx4(t, a->l, FT_(modulus).l, &FT_(n0));
        FT_(reduce_once_)(ret, t, 0);
#else
        FT_(mul)(ret, a, a);
#endif
        return;
    }
#endif
    FT_(sqr_c)(ret, a);
}

/* c0 = a0*b0 - a1*b1 and c1 = a0*b1 + a1*b0 (Montgomery products, fully
 * reduced): the two halves of a product in Fp2 = Fp[u]/(u^2 + 1), with
 * Karatsuba's (a0 + a1)(b0 + b1) - a0*b0 - a1*b1 for c1. On the
 * mulx/adcx/adox path of a 4- or 6-limb field with p < R/4 the three
 * products stay unreduced (2N words; the sums a0 + a1 < R/2 are not reduced
 * either) and only c0 (plus p*R when negative) and c1 (< 2p^2 < p*R) are
 * Montgomery-reduced: two reductions instead of three. Outputs may alias
 * the inputs. */
static TMPL_NOINLINE void FT_(mul2_karatsuba)(FT_T *c0, FT_T *c1, const FT_T *a0,
                                               const FT_T *a1, const FT_T *b0,
                                               const FT_T *b1)
{
#if LIMB_ADX && (FIELD_LIMBS == 4 || FIELD_LIMBS == 6)
    if (FT_(uses_adx)() && FT_(modulus).l[FT_N - 1] < (1ULL << 62)) {
        uint64_t v0[2 * FT_N], v1[2 * FT_N], m[2 * FT_N], sa[FT_N], sb[FT_N];
        uint64_t t[FT_N], c = 0, d = 0, bw;
        TMPL_UNROLL
        for (int i = 0; i < FT_N; i++) {
            sa[i] = limb_adc(a0->l[i], a1->l[i], &c);
            sb[i] = limb_adc(b0->l[i], b1->l[i], &d);
        }
#if FIELD_LIMBS == 4
#define FT_WIDE_ limb_mul_wide_adx4
#define FT_REDC_ limb_mont_redc_adx4
#else
#define FT_WIDE_ limb_mul_wide_adx6
#define FT_REDC_ limb_mont_redc_adx6
#endif
        FT_WIDE_(v0, a0->l, b0->l);
        FT_WIDE_(v1, a1->l, b1->l);
        FT_WIDE_(m, sa, sb);
        bw = 0; /* m = a0*b1 + a1*b0 */
        TMPL_UNROLL
        for (int i = 0; i < 2 * FT_N; i++)
            m[i] = limb_sbb(m[i], v0[i], &bw);
        bw = 0;
        TMPL_UNROLL
        for (int i = 0; i < 2 * FT_N; i++)
            m[i] = limb_sbb(m[i], v1[i], &bw);
        bw = 0; /* v0 = a0*b0 - a1*b1, + p*R if that borrowed */
        TMPL_UNROLL
        for (int i = 0; i < 2 * FT_N; i++)
            v0[i] = limb_sbb(v0[i], v1[i], &bw);
        uint64_t mask = limb_mask(bw);
        c = 0;
        TMPL_UNROLL
        for (int i = 0; i < FT_N; i++)
            v0[FT_N + i] = limb_adc(v0[FT_N + i], FT_(modulus).l[i] & mask, &c);
        FT_REDC_(t, v0, FT_(modulus).l, &FT_(n0));
        FT_(reduce_once_)(c0, t, 0);
        FT_REDC_(t, m, FT_(modulus).l, &FT_(n0));
        FT_(reduce_once_)(c1, t, 0);
#undef FT_WIDE_
#undef FT_REDC_
        return;
    }
#endif
    FT_T v0, v1, s, t;
    FT_(mul)(&v0, a0, b0);
    FT_(mul)(&v1, a1, b1);
    FT_(add)(&s, a0, a1);
    FT_(add)(&t, b0, b1);
    FT_(mul)(&s, &s, &t);
    FT_(sub)(&s, &s, &v0);
    FT_(sub)(c1, &s, &v1);
    FT_(sub)(c0, &v0, &v1);
}

/* ret = Montgomery form of std (std is a standard-form value < p). */
static inline void FT_(to_mont)(FT_T *ret, const FT_T *std)
{
    FT_(mul)(ret, std, &FT_(r2));
}

/* ret = standard form of mont (mont is a Montgomery-form value < p). */
static inline void FT_(from_mont)(FT_T *ret, const FT_T *mont)
{
    FT_T one_std;
    FT_(set_zero)(&one_std);
    one_std.l[0] = 1;
    FT_(mul)(ret, mont, &one_std);
}

/* ret = Montgomery form of the small integer v (v < p). */
static inline void FT_(from_u64)(FT_T *ret, uint64_t v)
{
    FT_T t;
    FT_(set_zero)(&t);
    t.l[0] = v;
    FT_(to_mont)(ret, &t);
}

/* ret = base^exp. base and ret in Montgomery form; exp is a standard-form
 * integer of exp_limbs little-endian u64 limbs (any size, need not be < p).
 * exp = 0 gives 1 (also for base 0). Left-to-right, fixed 4-bit windows for
 * multi-limb exponents; branches on the exponent (not constant time in
 * exp). */
static inline void FT_(pow)(FT_T *ret, const FT_T *base, const uint64_t *exp,
                            size_t exp_limbs)
{
    FT_T acc = FT_(mont_one);
    int started = 0;
    while (exp_limbs > 0 && exp[exp_limbs - 1] == 0)
        exp_limbs--;
    if (exp_limbs <= 1) { /* short exponent: plain square-and-multiply */
        FT_T b = *base;
        uint64_t w = exp_limbs ? exp[0] : 0;
        for (int j = 63; j >= 0; j--) {
            if (started)
                FT_(sqr)(&acc, &acc);
            if ((w >> j) & 1) {
                if (started)
                    FT_(mul)(&acc, &acc, &b);
                else
                    acc = b;
                started = 1;
            }
        }
        *ret = acc;
        return;
    }
    FT_T tbl[16]; /* tbl[i] = base^i */
    tbl[0] = FT_(mont_one);
    tbl[1] = *base;
    for (int i = 2; i < 16; i++)
        FT_(mul)(&tbl[i], &tbl[i - 1], &tbl[1]);
    for (size_t i = exp_limbs; i-- > 0;) {
        for (int j = 60; j >= 0; j -= 4) {
            unsigned w = (unsigned)(exp[i] >> j) & 15;
            if (started) {
                FT_(sqr)(&acc, &acc);
                FT_(sqr)(&acc, &acc);
                FT_(sqr)(&acc, &acc);
                FT_(sqr)(&acc, &acc);
            }
            if (w) {
                if (started)
                    FT_(mul)(&acc, &acc, &tbl[w]);
                else
                    acc = tbl[w];
                started = 1;
            }
        }
    }
    *ret = acc;
}

/* ret = a^-1 (Montgomery form in and out), computed as a^(p-2);
 * the inverse of 0 is 0. */
static inline void FT_(inv)(FT_T *ret, const FT_T *a)
{
    uint64_t e[FT_N], bw = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        e[i] = limb_sbb(FT_(modulus).l[i], i == 0 ? 2 : 0, &bw);
    FT_(pow)(ret, a, e, FT_N);
}

/* ret = a^-1 (Montgomery form in and out), the inverse of 0 is 0, in
 * VARIABLE time (GMP's extended Euclid on the limbs, limb_inv.h): about 16×
 * faster than F_inv for 6 limbs; for code that already branches on its
 * data. (aR)^-1 = a^-1·R^-1, and two products by R^2 give a^-1·R. */
static inline void FT_(inv_vartime)(FT_T *ret, const FT_T *a)
{
    FT_T t;
    limb_inv_vartime(t.l, a->l, FT_(modulus).l, FT_N);
    FT_(mul)(&t, &t, &FT_(r2));
    FT_(mul)(ret, &t, &FT_(r2));
}

/* 1 if the FIELD_LIMBS little-endian limbs at l encode a value < p. */
static inline int FT_(is_canonical)(const uint64_t *l)
{
    uint64_t bw = 0;
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++)
        (void)limb_sbb(l[i], FT_(modulus).l[i], &bw);
    return (int)bw;
}

/* Reads 8*FIELD_LIMBS little-endian bytes into ret's limbs, without any
 * form conversion. Returns 0, or -1 (ret left unchanged) if value >= p. */
static inline int FT_(from_bytes)(FT_T *ret, const uint8_t *le)
{
    uint64_t l[FT_N];
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = (w << 8) | le[8 * i + k];
        l[i] = w;
    }
    if (!FT_(is_canonical)(l))
        return -1;
    memcpy(ret->l, l, sizeof l);
    return 0;
}

/* Writes a's limbs as 8*FIELD_LIMBS little-endian bytes (no conversion). */
static inline void FT_(to_bytes)(uint8_t *le, const FT_T *a)
{
    TMPL_UNROLL
    for (int i = 0; i < FT_N; i++) {
        uint64_t w = a->l[i];
        for (int k = 0; k < 8; k++)
            le[8 * i + k] = (uint8_t)(w >> (8 * k));
    }
}

#undef FT_N
#undef FT_T
#undef FT_
#undef FIELD
#undef FIELD_LIMBS
#undef FIELD_P
#undef FIELD_ONE
#undef FIELD_R2
#undef FIELD_N0
