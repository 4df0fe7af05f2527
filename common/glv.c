/* glv.c — scalar splitting for the GLV endomorphism (see glv.h, gen_glv.py). */
#include "glv.h"

#include <string.h>

#include "limb.h"

const struct glv_curve bn254_glv = {
    .r = BN254_FR_P,
    .g1 = BN254_GLV_G1,
    .g2 = BN254_GLV_G2,
    .g1_neg = BN254_GLV_G1_NEG,
    .g2_neg = BN254_GLV_G2_NEG,
    .na1 = BN254_GLV_NA1,
    .na2 = BN254_GLV_NA2,
    .nb1 = BN254_GLV_NB1,
    .nb2 = BN254_GLV_NB2,
};

const struct glv_curve bls12381_glv = {
    .r = BLS12381_FR_P,
    .g1 = BLS12381_GLV_G1,
    .g2 = BLS12381_GLV_G2,
    .g1_neg = BLS12381_GLV_G1_NEG,
    .g2_neg = BLS12381_GLV_G2_NEG,
    .na1 = BLS12381_GLV_NA1,
    .na2 = BLS12381_GLV_NA2,
    .nb1 = BLS12381_GLV_NB1,
    .nb2 = BLS12381_GLV_NB2,
};

/* 1 if a ≥ b (4 limbs). */
static int ge4(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 4; i-- > 0;)
        if (a[i] != b[i])
            return a[i] > b[i];
    return 1;
}

static void sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        limb_u128 d = (limb_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

static void add4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        limb_u128 s = (limb_u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

static void neg4(uint64_t r[4], const uint64_t a[4])
{
    static const uint64_t zero[4];
    sub4(r, zero, a);
}

/* r = a·b mod 2^256 */
static void mul4_lo(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 4; j++) {
            limb_u128 p = (limb_u128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
    }
    memcpy(r, t, sizeof(t));
}

/* c = round(k·g / 2^384) = (k·g + 2^383) >> 384, as 4 limbs (below 2^131). */
static void round_mul(uint64_t c[4], const uint64_t k[4], const uint64_t g[5])
{
    uint64_t t[9] = { 0 };
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 5; j++) {
            limb_u128 p = (limb_u128)k[i] * g[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        t[i + 5] = carry;
    }
    /* + 2^383: bit 63 of limb 5 */
    limb_u128 s = (limb_u128)t[5] + (1ULL << 63);
    uint64_t carry = (uint64_t)(s >> 64);
    for (int i = 6; i < 9; i++) {
        s = (limb_u128)t[i] + carry;
        t[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    c[0] = t[6];
    c[1] = t[7];
    c[2] = t[8];
    c[3] = 0;
}

/* Magnitude and sign of a two's complement 256-bit value; -1 if the
 * magnitude needs more than 128 bits. */
static int mag128(uint64_t m[2], unsigned *neg, const uint64_t v[4])
{
    uint64_t a[4];
    *neg = (unsigned)(v[3] >> 63);
    if (*neg)
        neg4(a, v);
    else
        memcpy(a, v, sizeof(a));
    if (a[2] | a[3])
        return -1;
    m[0] = a[0];
    m[1] = a[1];
    return 0;
}

int glv_split(const struct glv_curve *c, const uint64_t k_in[4], uint64_t m1[2],
              uint64_t m2[2], unsigned *neg)
{
    uint64_t k[4], c1[4], c2[4], t[4], k1[4], k2[4];
    memcpy(k, k_in, sizeof(k));
    while (ge4(k, c->r))   /* at most 5 rounds: 2^256 < 6r for both curves */
        sub4(k, k, c->r);
    round_mul(c1, k, c->g1);
    round_mul(c2, k, c->g2);
    if (c->g1_neg)
        neg4(c1, c1);
    if (c->g2_neg)
        neg4(c2, c2);
    /* k1 = k − c1·a1 − c2·a2, k2 = −c1·b1 − c2·b2 (mod 2^256, exact in range) */
    mul4_lo(t, c1, c->na1);
    add4(k1, k, t);
    mul4_lo(t, c2, c->na2);
    add4(k1, k1, t);
    mul4_lo(k2, c1, c->nb1);
    mul4_lo(t, c2, c->nb2);
    add4(k2, k2, t);
    unsigned n1, n2;
    if (mag128(m1, &n1, k1) < 0 || mag128(m2, &n2, k2) < 0)
        return -1;
    *neg = n1 | n2 << 1;
    return 0;
}

int bls12381_psi_split(const uint64_t k_in[4], uint64_t m[4][2], unsigned *neg)
{
    static const uint64_t r[4] = BLS12381_FR_P;
    const uint64_t z = BLS12381_PARAM_ABS;
    uint64_t k[4];
    memcpy(k, k_in, sizeof(k));
    while (ge4(k, r))
        sub4(k, k, r);
    /* base-|z| digits, least significant first: k = Σ d_j |z|^j, and as
     * k < r < |z|^4 the last quotient is the fourth digit */
    for (int j = 0; j < 3; j++) {
        limb_u128 rem = 0;
        for (int i = 4; i-- > 0;) {
            limb_u128 cur = rem << 64 | k[i];
            k[i] = (uint64_t)(cur / z);
            rem = cur % z;
        }
        m[j][0] = (uint64_t)rem;
        m[j][1] = 0;
    }
    if (k[1] | k[2] | k[3] || k[0] >= z)
        return -1;
    m[3][0] = k[0];
    m[3][1] = 0;
    /* |z|^j = (−z)^j = (−1)^j·z^j with z < 0: odd digits go on −ψ^j(Q) */
    *neg = BLS12381_PARAM_NEG ? 0xa : 0;
    return 0;
}
