/* bls12381_zcash.c - zcash point encoding (see bls12381_zcash.h). */
#include "bls12381_zcash.h"

#include <string.h>

#include "bls12381_pairing.h"

#define FP_BYTES BLS12381_FP_BYTES
#define FP_LIMBS 6

const char *zcash_reason(enum zcash_status st)
{
    switch (st) {
    case ZCASH_OK: return "ok";
    case ZCASH_BAD_COMPRESSION: return "compression flag (0x80) does not match the form required";
    case ZCASH_BAD_SIGN: return "sign flag (0x20) set in an uncompressed point or at infinity";
    case ZCASH_BAD_INFINITY: return "infinity flag (0x40) set but the other bits are not zero";
    case ZCASH_NOT_CANONICAL: return "a coordinate is not below the field prime q";
    case ZCASH_NOT_ON_CURVE: return "not on the curve";
    case ZCASH_NOT_IN_SUBGROUP: return "not in the prime-order subgroup";
    }
    return "unknown";
}

/* ---------------------------------------------------------------- helpers */

/* e = (q + add) >> shift, add in {-3, -1, +1}; 6 limbs. */
static void q_exponent(uint64_t e[FP_LIMBS], int add, unsigned shift)
{
    uint64_t c = 0;
    for (int i = 0; i < FP_LIMBS; i++)
        e[i] = bls12381_fp_modulus.l[i];
    if (add < 0) {
        uint64_t bw = 0;
        for (int i = 0; i < FP_LIMBS; i++)
            e[i] = limb_sbb(e[i], i == 0 ? (uint64_t)-add : 0, &bw);
    } else {
        for (int i = 0; i < FP_LIMBS; i++)
            e[i] = limb_adc(e[i], i == 0 ? (uint64_t)add : 0, &c);
    }
    for (int i = 0; i < FP_LIMBS; i++)
        e[i] = (e[i] >> shift) | (i + 1 < FP_LIMBS ? e[i + 1] << (64 - shift) : 0);
}

/* Standard-form value of a Montgomery-form element, big-endian 48 bytes. */
static void fp_to_be(uint8_t out[FP_BYTES], const bls12381_fp_t *a)
{
    bls12381_fp_t s;
    uint8_t le[FP_BYTES];
    bls12381_fp_from_mont(&s, a);
    bls12381_fp_to_bytes(le, &s);
    for (int i = 0; i < FP_BYTES; i++)
        out[i] = le[FP_BYTES - 1 - i];
}

/* Big-endian 48 bytes (flags already masked off by the caller) to Montgomery
 * form; -1 if the value is >= q. */
static int fp_from_be(bls12381_fp_t *ret, const uint8_t in[FP_BYTES])
{
    uint8_t le[FP_BYTES];
    bls12381_fp_t s;
    for (int i = 0; i < FP_BYTES; i++)
        le[i] = in[FP_BYTES - 1 - i];
    if (bls12381_fp_from_bytes(&s, le) != 0)
        return -1;
    bls12381_fp_to_mont(ret, &s);
    return 0;
}

/* 1 if the standard form of a (Montgomery form) is > (q-1)/2. */
static int fp_lex_largest(const bls12381_fp_t *a)
{
    uint64_t half[FP_LIMBS];
    bls12381_fp_t s;
    q_exponent(half, -1, 1);
    bls12381_fp_from_mont(&s, a);
    for (int i = FP_LIMBS - 1; i >= 0; i--) {
        if (s.l[i] != half[i])
            return s.l[i] > half[i];
    }
    return 0;
}

static int fp2_lex_largest(const bls12381_fp2_t *a)
{
    if (!bls12381_fp_is_zero(&a->c1))
        return fp_lex_largest(&a->c1);
    return fp_lex_largest(&a->c0);
}

/* ret = base^e in Fp2, e of FP_LIMBS limbs (public exponent). */
static void fp2_pow(bls12381_fp2_t *ret, const bls12381_fp2_t *base, const uint64_t e[FP_LIMBS])
{
    bls12381_fp2_t acc, b = *base;
    bls12381_fp2_set_one(&acc);
    for (int i = FP_LIMBS - 1; i >= 0; i--) {
        for (int j = 63; j >= 0; j--) {
            bls12381_fp2_sqr(&acc, &acc);
            if ((e[i] >> j) & 1)
                bls12381_fp2_mul(&acc, &acc, &b);
        }
    }
    *ret = acc;
}

int bls12381_fp_sqrt(bls12381_fp_t *ret, const bls12381_fp_t *a)
{
    uint64_t e[FP_LIMBS];
    bls12381_fp_t x, x2;
    q_exponent(e, +1, 2);
    bls12381_fp_pow(&x, a, e, FP_LIMBS);
    bls12381_fp_sqr(&x2, &x);
    if (!bls12381_fp_eq(&x2, a))
        return 0;
    *ret = x;
    return 1;
}

int bls12381_fp2_sqrt(bls12381_fp2_t *ret, const bls12381_fp2_t *a)
{
    uint64_t e34[FP_LIMBS], e12[FP_LIMBS];
    bls12381_fp2_t a1, alpha, a0, x0, x, chk, minus_one;
    if (bls12381_fp2_is_zero(a)) {
        bls12381_fp2_set_zero(ret);
        return 1;
    }
    q_exponent(e34, -3, 2);
    q_exponent(e12, -1, 1);
    bls12381_fp2_set_one(&minus_one);
    bls12381_fp2_neg(&minus_one, &minus_one);
    fp2_pow(&a1, a, e34);
    bls12381_fp2_sqr(&alpha, &a1);
    bls12381_fp2_mul(&alpha, &alpha, a);
    bls12381_fp2_conj(&a0, &alpha); /* alpha^q */
    bls12381_fp2_mul(&a0, &a0, &alpha);
    if (bls12381_fp2_eq(&a0, &minus_one))
        return 0;
    bls12381_fp2_mul(&x0, &a1, a);
    if (bls12381_fp2_eq(&alpha, &minus_one)) {
        /* x = u * x0 = -x0.c1 + x0.c0 u */
        bls12381_fp_neg(&x.c0, &x0.c1);
        x.c1 = x0.c0;
    } else {
        bls12381_fp2_t b, one;
        bls12381_fp2_set_one(&one);
        bls12381_fp2_add(&b, &alpha, &one);
        fp2_pow(&b, &b, e12);
        bls12381_fp2_mul(&x, &b, &x0);
    }
    bls12381_fp2_sqr(&chk, &x);
    if (!bls12381_fp2_eq(&chk, a))
        return 0;
    *ret = x;
    return 1;
}

/* ---------------------------------------------------------------- encode */

void bls12381_g1_to_zcash(uint8_t out[ZCASH_G1_BYTES], const bls12381_g1_affine_t *p)
{
    memset(out, 0, ZCASH_G1_BYTES);
    if (bls12381_g1_affine_is_inf(p)) {
        out[0] = ZCASH_FLAG_INFINITY;
        return;
    }
    fp_to_be(out, &p->x);
    fp_to_be(out + FP_BYTES, &p->y);
}

void bls12381_g1_to_zcash_compressed(uint8_t out[ZCASH_G1_COMPRESSED_BYTES],
                                     const bls12381_g1_affine_t *p)
{
    memset(out, 0, ZCASH_G1_COMPRESSED_BYTES);
    if (bls12381_g1_affine_is_inf(p)) {
        out[0] = ZCASH_FLAG_COMPRESSED | ZCASH_FLAG_INFINITY;
        return;
    }
    fp_to_be(out, &p->x);
    out[0] |= ZCASH_FLAG_COMPRESSED;
    if (fp_lex_largest(&p->y))
        out[0] |= ZCASH_FLAG_SIGN;
}

void bls12381_g2_to_zcash(uint8_t out[ZCASH_G2_BYTES], const bls12381_g2_affine_t *p)
{
    memset(out, 0, ZCASH_G2_BYTES);
    if (bls12381_g2_affine_is_inf(p)) {
        out[0] = ZCASH_FLAG_INFINITY;
        return;
    }
    fp_to_be(out, &p->x.c1);
    fp_to_be(out + FP_BYTES, &p->x.c0);
    fp_to_be(out + 2 * FP_BYTES, &p->y.c1);
    fp_to_be(out + 3 * FP_BYTES, &p->y.c0);
}

void bls12381_g2_to_zcash_compressed(uint8_t out[ZCASH_G2_COMPRESSED_BYTES],
                                     const bls12381_g2_affine_t *p)
{
    memset(out, 0, ZCASH_G2_COMPRESSED_BYTES);
    if (bls12381_g2_affine_is_inf(p)) {
        out[0] = ZCASH_FLAG_COMPRESSED | ZCASH_FLAG_INFINITY;
        return;
    }
    fp_to_be(out, &p->x.c1);
    fp_to_be(out + FP_BYTES, &p->x.c0);
    out[0] |= ZCASH_FLAG_COMPRESSED;
    if (fp2_lex_largest(&p->y))
        out[0] |= ZCASH_FLAG_SIGN;
}

/* ---------------------------------------------------------------- decode */

/* Checks the flags of an encoding of len bytes. *inf = 1 for a valid
 * infinity. */
static enum zcash_status check_flags(const uint8_t *in, size_t len, int compressed, int *inf)
{
    uint8_t f = in[0];
    *inf = 0;
    if (!!(f & ZCASH_FLAG_COMPRESSED) != !!compressed)
        return ZCASH_BAD_COMPRESSION;
    if (f & ZCASH_FLAG_INFINITY) {
        if (f & ZCASH_FLAG_SIGN)
            return ZCASH_BAD_SIGN;
        if (f & 0x1f)
            return ZCASH_BAD_INFINITY;
        for (size_t i = 1; i < len; i++)
            if (in[i])
                return ZCASH_BAD_INFINITY;
        *inf = 1;
        return ZCASH_OK;
    }
    if (!compressed && (f & ZCASH_FLAG_SIGN))
        return ZCASH_BAD_SIGN;
    return ZCASH_OK;
}

/* The first 48-byte coordinate with the flag bits cleared. */
static int fp_from_be_masked(bls12381_fp_t *ret, const uint8_t in[FP_BYTES])
{
    uint8_t t[FP_BYTES];
    memcpy(t, in, FP_BYTES);
    t[0] &= 0x1f;
    return fp_from_be(ret, t);
}

enum zcash_status bls12381_g1_from_zcash(bls12381_g1_affine_t *p,
                                         const uint8_t in[ZCASH_G1_BYTES], int subgroup)
{
    int inf;
    enum zcash_status st = check_flags(in, ZCASH_G1_BYTES, 0, &inf);
    if (st != ZCASH_OK)
        return st;
    if (inf) {
        bls12381_g1_affine_set_inf(p);
        return ZCASH_OK;
    }
    if (fp_from_be_masked(&p->x, in) || fp_from_be(&p->y, in + FP_BYTES))
        return ZCASH_NOT_CANONICAL;
    /* (0, 0) is our infinity, and not on y^2 = x^3 + 4 either */
    if (bls12381_g1_affine_is_inf(p) || !bls12381_g1_affine_is_on_curve(p))
        return ZCASH_NOT_ON_CURVE;
    if (subgroup && !bls12381_g1_in_subgroup(p))
        return ZCASH_NOT_IN_SUBGROUP;
    return ZCASH_OK;
}

enum zcash_status bls12381_g1_from_zcash_compressed(bls12381_g1_affine_t *p,
                                                    const uint8_t in[ZCASH_G1_COMPRESSED_BYTES],
                                                    int subgroup)
{
    int inf;
    enum zcash_status st = check_flags(in, ZCASH_G1_COMPRESSED_BYTES, 1, &inf);
    if (st != ZCASH_OK)
        return st;
    if (inf) {
        bls12381_g1_affine_set_inf(p);
        return ZCASH_OK;
    }
    if (fp_from_be_masked(&p->x, in))
        return ZCASH_NOT_CANONICAL;
    bls12381_fp_t rhs;
    bls12381_fp_sqr(&rhs, &p->x);
    bls12381_fp_mul(&rhs, &rhs, &p->x);
    bls12381_fp_add(&rhs, &rhs, &bls12381_g1_b);
    if (!bls12381_fp_sqrt(&p->y, &rhs))
        return ZCASH_NOT_ON_CURVE;
    if (fp_lex_largest(&p->y) != !!(in[0] & ZCASH_FLAG_SIGN))
        bls12381_fp_neg(&p->y, &p->y);
    if (subgroup && !bls12381_g1_in_subgroup(p))
        return ZCASH_NOT_IN_SUBGROUP;
    return ZCASH_OK;
}

enum zcash_status bls12381_g2_from_zcash(bls12381_g2_affine_t *p,
                                         const uint8_t in[ZCASH_G2_BYTES], int subgroup)
{
    int inf;
    enum zcash_status st = check_flags(in, ZCASH_G2_BYTES, 0, &inf);
    if (st != ZCASH_OK)
        return st;
    if (inf) {
        bls12381_g2_affine_set_inf(p);
        return ZCASH_OK;
    }
    if (fp_from_be_masked(&p->x.c1, in) || fp_from_be(&p->x.c0, in + FP_BYTES) ||
        fp_from_be(&p->y.c1, in + 2 * FP_BYTES) || fp_from_be(&p->y.c0, in + 3 * FP_BYTES))
        return ZCASH_NOT_CANONICAL;
    if (bls12381_g2_affine_is_inf(p) || !bls12381_g2_affine_is_on_curve(p))
        return ZCASH_NOT_ON_CURVE;
    if (subgroup && !bls12381_g2_in_subgroup(p))
        return ZCASH_NOT_IN_SUBGROUP;
    return ZCASH_OK;
}

enum zcash_status bls12381_g2_from_zcash_compressed(bls12381_g2_affine_t *p,
                                                    const uint8_t in[ZCASH_G2_COMPRESSED_BYTES],
                                                    int subgroup)
{
    int inf;
    enum zcash_status st = check_flags(in, ZCASH_G2_COMPRESSED_BYTES, 1, &inf);
    if (st != ZCASH_OK)
        return st;
    if (inf) {
        bls12381_g2_affine_set_inf(p);
        return ZCASH_OK;
    }
    if (fp_from_be_masked(&p->x.c1, in) || fp_from_be(&p->x.c0, in + FP_BYTES))
        return ZCASH_NOT_CANONICAL;
    bls12381_fp2_t rhs;
    bls12381_fp2_sqr(&rhs, &p->x);
    bls12381_fp2_mul(&rhs, &rhs, &p->x);
    bls12381_fp2_add(&rhs, &rhs, &bls12381_g2_b);
    if (!bls12381_fp2_sqrt(&p->y, &rhs))
        return ZCASH_NOT_ON_CURVE;
    if (fp2_lex_largest(&p->y) != !!(in[0] & ZCASH_FLAG_SIGN))
        bls12381_fp2_neg(&p->y, &p->y);
    if (subgroup && !bls12381_g2_in_subgroup(p))
        return ZCASH_NOT_IN_SUBGROUP;
    return ZCASH_OK;
}
