/*
 * fields.cuh — the four prime fields of slotprove on the GPU (ff.cuh
 * parameters) and the quadratic extension Fp2 = Fp[u]/(u² + 1) that both
 * curves' G2 coordinates live in.
 *
 * The moduli, R mod p and n0 come from the generated constants of
 * common/bn254.h and common/bls12381.h (checked against GMP by
 * tests/test_field.c): the 64-bit limbs are split into 32-bit halves here,
 * and n0 mod 2^32 = −p^−1 mod 2^32 is the low half of the 64-bit n0.
 */
#ifndef SLOTPROVE_CUDA_FIELDS_CUH
#define SLOTPROVE_CUDA_FIELDS_CUH

extern "C" {
#include "bls12381.h"
#include "bn254.h"
}

#include "ff.cuh"
#include "ff_wide.cuh"

#define FIELD_PARAMS(NAME, LIMBS64, PMAC, ONEMAC, N0MAC)                      \
    struct NAME {                                                            \
        static constexpr int N = 2 * (LIMBS64);                              \
        static constexpr uint32_t n0 = (uint32_t)(N0MAC);                    \
        static FF_INLINE constexpr uint32_t p(int i)                         \
        {                                                                    \
            const uint64_t l[LIMBS64] = PMAC;                                \
            return (uint32_t)(l[i / 2] >> (32 * (i & 1)));                   \
        }                                                                    \
        static FF_INLINE constexpr uint32_t one(int i)                       \
        {                                                                    \
            const uint64_t l[LIMBS64] = ONEMAC;                              \
            return (uint32_t)(l[i / 2] >> (32 * (i & 1)));                   \
        }                                                                    \
    }

FIELD_PARAMS(bn254_fr_params, 4, BN254_FR_P, BN254_FR_ONE, BN254_FR_N0);
FIELD_PARAMS(bn254_fp_params, 4, BN254_FP_P, BN254_FP_ONE, BN254_FP_N0);
FIELD_PARAMS(bls12381_fr_params, 4, BLS12381_FR_P, BLS12381_FR_ONE, BLS12381_FR_N0);
FIELD_PARAMS(bls12381_fp_params, 6, BLS12381_FP_P, BLS12381_FP_ONE, BLS12381_FP_N0);

typedef fp<bn254_fr_params> bn254_fr_d;
typedef fp<bn254_fp_params> bn254_fp_d;
typedef fp<bls12381_fr_params> bls12381_fr_d;
typedef fp<bls12381_fp_params> bls12381_fp_d;

/* c0 + c1·u with u² = −1; the byte layout of common/fp2_tmpl.h (c0 then c1). */
template <class P> struct fp2 {
    fp<P> c0, c1;
    static FF_INLINE fp2 zero() { return fp2{ fp<P>::zero(), fp<P>::zero() }; }
    static FF_INLINE fp2 one() { return fp2{ fp<P>::one(), fp<P>::zero() }; }
};

template <class P> FF_INLINE bool is_zero(const fp2<P> &a)
{
    return is_zero(a.c0) & is_zero(a.c1);
}
template <class P> FF_INLINE bool eq(const fp2<P> &a, const fp2<P> &b)
{
    return eq(a.c0, b.c0) & eq(a.c1, b.c1);
}
template <class P> FF_INLINE fp2<P> operator+(const fp2<P> &a, const fp2<P> &b)
{
    return fp2<P>{ a.c0 + b.c0, a.c1 + b.c1 };
}
template <class P> FF_INLINE fp2<P> operator-(const fp2<P> &a, const fp2<P> &b)
{
    return fp2<P>{ a.c0 - b.c0, a.c1 - b.c1 };
}
template <class P> FF_INLINE fp2<P> operator-(const fp2<P> &a)
{
    return fp2<P>{ -a.c0, -a.c1 };
}
template <class P> FF_INLINE fp2<P> dbl(const fp2<P> &a)
{
    return fp2<P>{ dbl(a.c0), dbl(a.c1) };
}
/* The Fp2 product and square are kept out of line: a G2 point addition
 * inlined to ~40 base-field products makes the compiler take many minutes
 * per architecture; as calls, the code is ~15× smaller and compiles in
 * seconds (and an inlined bucket-sum loop ran slower on the H200: the
 * instruction cache). Operands go by value: in registers, where references
 * made the caller keep them in local memory (7% faster BLS12-381 G2 MSMs on
 * the H200).
 *
 * The product: Karatsuba with lazy reduction (Aranha, Karabina, Longa,
 * Gebotys, López, "Faster explicit formulas for computing pairings over
 * ordinary curves", 2011): three double-width products and two Montgomery
 * reductions (ff_wide.cuh) instead of three Montgomery products:
 *   c0 = REDC(a0·b0 − a1·b1 (+ p·R when negative)),  in [0, p·R)
 *   c1 = REDC((a0 + a1)(b0 + b1) − a0·b0 − a1·b1),  = a0·b1 + a1·b0 < 2p² < p·R
 * (the unreduced sums a0 + a1 < 2p < R: p has a spare top bit). */
template <class P> __device__ __noinline__ fp2<P> operator*(const fp2<P> a, const fp2<P> b)
{
    fp_wide<P> v0 = fp_mul_wide(a.c0, b.c0), v1 = fp_mul_wide(a.c1, b.c1);
    fp_wide<P> s = fp_mul_wide(fp_add_nr(a.c0, a.c1), fp_add_nr(b.c0, b.c1));
    uint32_t neg, unused;
    fp_wide<P> d = fp_wide_add_pr(fp_wide_sub(v0, v1, neg), neg);
    fp_wide<P> e = fp_wide_sub(fp_wide_sub(s, v0, unused), v1, unused);
    return fp2<P>{ fp_redc(d), fp_redc(e) };
}
/* (c0 + c1 u)² = (c0 + c1)(c0 − c1) + 2 c0 c1 u: two base-field products. */
template <class P> __device__ __noinline__ fp2<P> sqr(const fp2<P> a)
{
    fp<P> t = a.c0 * a.c1;
    return fp2<P>{ (a.c0 + a.c1) * (a.c0 - a.c1), dbl(t) };
}

typedef fp2<bn254_fp_params> bn254_fp2_d;
typedef fp2<bls12381_fp_params> bls12381_fp2_d;

#endif
