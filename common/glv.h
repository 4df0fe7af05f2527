/*
 * glv.h — the GLV endomorphism of G1 on BN254 and BLS12-381 (Gallant,
 * Lambert, Vanstone, CRYPTO 2001), used by the G1 MSMs.
 *
 * On G1 (y² = x³ + b over Fq, q ≡ 1 mod 3), φ(x, y) = (β·x, y) with β a
 * primitive cube root of unity in Fq is the multiplication by λ, a cube root
 * of unity mod r: φ(P) = λ·P for P of order r. A scalar k then splits as
 * k ≡ k1 + k2·λ (mod r) with |k1|, |k2| < 2^X_GLV_BITS (126 BN254, 127
 * BLS12-381), so k·P = k1·P + k2·φ(P) is two half-length products.
 * β, λ, the lattice basis and the rounding constants come from
 * common/gen_glv.py (common/glv_constants.h); tests/test_glv.c checks them
 * against GMP and the group law.
 */
#ifndef SLOTPROVE_GLV_H
#define SLOTPROVE_GLV_H

#include <stdint.h>

#include "bls12381.h"
#include "bls12381_pairing.h"
#include "bn254.h"
#include "glv_constants.h"

/* One curve's split constants (see gen_glv.py for the math). */
struct glv_curve {
    uint64_t r[4];          /* the group order */
    uint64_t g1[5], g2[5];  /* |round(2^384·b2/r)|, |round(−2^384·b1/r)| */
    int g1_neg, g2_neg;     /* their signs */
    uint64_t na1[4], na2[4], nb1[4], nb2[4]; /* −a1, −a2, −b1, −b2 mod 2^256 */
};

extern const struct glv_curve bn254_glv, bls12381_glv;

static const bn254_fp_t bn254_glv_beta = BN254_GLV_BETA;
static const bls12381_fp_t bls12381_glv_beta = BLS12381_GLV_BETA;
static const uint64_t bn254_glv_lambda[4] = BN254_GLV_LAMBDA;
static const uint64_t bls12381_glv_lambda[4] = BLS12381_GLV_LAMBDA;

/* Splits k (4 little-endian u64 limbs, any value below 2^256: it is reduced
 * mod r first) into k ≡ k1 + k2·λ (mod r): k1 = (−1)^(neg&1)·m1,
 * k2 = (−1)^(neg>>1)·m2, magnitudes m1, m2 as 2 limbs each, below
 * 2^X_GLV_BITS. Returns 0, or -1 if a magnitude does not fit in 128 bits
 * (cannot happen with the generated constants: gen_glv.py asserts the
 * bound; the MSM then falls back to unsplit scalars). */
int glv_split(const struct glv_curve *c, const uint64_t k[4], uint64_t m1[2],
              uint64_t m2[2], unsigned *neg);

/* ψ on BLS12-381 G2: ψ(x, y) = (conj(x)·cx, conj(y)·cy) (the constants of
 * bls12381_pairing.h) is the multiplication by z (the curve parameter, z < 0,
 * |z| < 2^64) on G2. r = z^4 − z^2 + 1 < |z|^4, so k mod r has four base-|z|
 * digits d_j < 2^64 and k·Q = Σ_j (−1)^j·d_j·ψ^j(Q). Fills m[j] = (d_j, 0)
 * and neg = 0b1010 (digits 1 and 3 negated); k is any value below 2^256.
 * Returns 0 (or -1 on an internal error that cannot happen: the last digit
 * is below |z|). */
int bls12381_psi_split(const uint64_t k[4], uint64_t m[4][2], unsigned *neg);

#endif
