/* fp381_ifma.c — see fp381_ifma.h (the kernels: fp381_ifma_kern.h): the
 * run-time choice, eight products, the G1 MSM's batch-affine additions in
 * lanes and the key check's G1 curve equations. */
#include "fp381_ifma.h"

#include <stddef.h>

#include "fp381_ifma_kern.h"

int fp381_ifma_enabled(void)
{
    return ifma_enabled();
}

int fp381_ifma_supported(void)
{
    return ifma_supported();
}

void bls12381_fp_mul_x8(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                        const bls12381_fp_t b[8])
{
#if FP381_IFMA
    if (ifma_enabled()) {
        bls12381_fp_mul_x8_ifma(r, a, b);
        return;
    }
#endif
    for (int k = 0; k < 8; k++)
        bls12381_fp_mul(&r[k], &a[k], &b[k]);
}

#if FP381_IFMA

uint64_t fp381_p52[8];

IFMA_TARGET void bls12381_fp_mul_x8_ifma(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                                         const bls12381_fp_t b[8])
{
    __m512i A[8], B[8], R[8];
    load_52(A, a, 0xff);
    load_52(B, b, 0xff);
    mont_mul_52x8(R, A, B);
    store_52(r, R, 8);
}

/* For the lanes in mask: B = *dst[k] += P = *src[k] (chord: x_B != x_P),
 * given T = 1/(x_P - x_B); the other lanes are neither read nor written. */
IFMA_TARGET static inline void chord_52x8(bls12381_g1_affine_t *const *dst,
                                          const bls12381_g1_affine_t *const *src,
                                          const __m512i T[8], __mmask8 mask)
{
    const unsigned oy = offsetof(bls12381_g1_affine_t, y);
    __m512i vd = _mm512_maskz_loadu_epi64(mask, (const void *)dst);
    __m512i vs = _mm512_maskz_loadu_epi64(mask, (const void *)src);
    __m512i X[8], Y[8], L[8], BX[8], BY[8], X3[8], Y3[8];
    load_52p(BY, vd, oy, mask);
    load_52p(Y, vs, oy, mask);
    sub_52x8(Y, Y, BY);                     /* y_P - y_B */
    mont_mul_52x8(L, Y, T);                 /* λ */
    load_52p(BX, vd, 0, mask);
    load_52p(X, vs, 0, mask);
    mont_mul_52x8(X3, L, L);
    sub_52x8(X3, X3, BX);
    sub_52x8(X3, X3, X);                    /* x3 = λ² - x_B - x_P */
    sub_52x8(Y3, BX, X3);
    mont_mul_52x8(Y3, Y3, L);
    sub_52x8(Y3, Y3, BY);                   /* y3 = λ(x_B - x3) - y_B */
    uint64_t a[8];
    _mm512_storeu_si512((void *)a, vd);
    store_52p(a, 0, X3, mask);
    store_52p(a, oy, Y3, mask);
}

IFMA_TARGET unsigned bls12381_g1_on_curve_x8_ifma(const bls12381_g1_affine_t *const pts[8])
{
    const unsigned oy = offsetof(bls12381_g1_affine_t, y);
    const __m512i zero = _mm512_setzero_si512();
    __m512i va = _mm512_loadu_si512((const void *)pts);
    __m512i X[8], Y[8], L[8], R[8], Bc[8];
    uint64_t b52[8];
    limbs_to_52(b52, bls12381_g1_b.l);
    load_52p(X, va, 0, 0xff);
    load_52p(Y, va, oy, 0xff);
    mont_mul_52x8(L, Y, Y);
    mont_mul_52x8(R, X, X);
    mont_mul_52x8(R, R, X);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        Bc[j] = _mm512_set1_epi64((long long)b52[j]);
    add_52x8(R, R, Bc);
    __mmask8 eq = 0xff, inf = 0xff;
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        eq &= _mm512_cmpeq_epi64_mask(L[j], R[j]);
        inf &= _mm512_cmpeq_epi64_mask(_mm512_or_si512(X[j], Y[j]), zero);
    }
    return (unsigned)(eq | inf);
}

/* D = den[k] for the lanes k in lm (the others zero), every zero lane
 * replaced by ONE (the batch's running product passes over it); returns
 * the mask of the lanes whose den[k] is zero, those outside lm included. */
IFMA_TARGET static inline __mmask8 load_den_52(__m512i D[8], const bls12381_fp_t *den,
                                               __mmask8 lm, const __m512i ONE[8])
{
    load_52(D, den, lm);
    __mmask8 z = zero_52x8(D);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        D[j] = _mm512_mask_blend_epi64(z, D[j], ONE[j]);
    return z;
}

IFMA_TARGET void bls12381_g1_add_batch_ifma(bls12381_g1_affine_t *const *dst,
                                            uint8_t *const *dst_set,
                                            const bls12381_g1_affine_t *const *src,
                                            unsigned n, bls12381_fp_t *den,
                                            bls12381_fp_t *pre)
{
    __m512i ONE[8], A[8], D[8], T[8], U[8];
    uint64_t one52[8];
    limbs_to_52(one52, bls12381_fp_mont_one.l);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        ONE[j] = A[j] = _mm512_set1_epi64((long long)one52[j]);
    for (unsigned i = 0; i < n; i++) { /* the denominators, as add_batch */
        const bls12381_g1_affine_t *B = dst[i], *P = src[i];
        bls12381_g1_affine_add_den(&den[i], B, P); /* x_P - x_B, 2y, or 0 */
    }
    /* lane k's running product over entries 8g + k (a zero den counts as
     * one); pre = the product before the entry */
    unsigned groups = (n + 7) / 8;
    for (unsigned g = 0; g < groups; g++) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        load_den_52(D, den + 8 * g, lm, ONE);
        store_52(pre + 8 * g, A, lanes);
        mont_mul_52x8(A, A, D);
    }
    /* the eight lanes' running products inverted, one inversion */
    bls12381_fp_t acc[8];
    store_52(acc, A, 8);
    bls12381_g1_coord_inv8_vartime(acc);
    load_52(A, acc, 0xff);
    for (unsigned g = groups; g-- > 0;) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        __mmask8 z = load_den_52(D, den + 8 * g, lm, ONE);
        load_52(U, pre + 8 * g, lm);
        mont_mul_52x8(T, A, U); /* 1/den */
        mont_mul_52x8(A, A, D);
        __mmask8 chord = lm & (__mmask8)~z, dbl = 0;
        for (unsigned k = 0; k < lanes; k++) {
            unsigned i = 8 * g + k;
            if (z >> k & 1)
                *dst_set[i] = 0; /* B + (-B) */
            else if (bls12381_fp_eq(&dst[i]->x, &src[i]->x))
                dbl |= (__mmask8)(1u << k);
        }
        chord &= (__mmask8)~dbl;
        if (chord)
            chord_52x8(dst + 8 * g, src + 8 * g, T, chord);
        if (dbl) { /* λ = 3x²/2y, one by one */
            bls12381_fp_t t[8];
            store_52(t, T, lanes);
            for (unsigned k = 0; k < lanes; k++) {
                if (!(dbl >> k & 1))
                    continue;
                bls12381_g1_affine_dbl_with_inv(dst[8 * g + k], &t[k]);
            }
        }
    }
}

/* p's digits, before main() */
__attribute__((constructor)) static void fp381_ifma_init(void)
{
    limbs_to_52(fp381_p52, bls12381_fp_modulus.l);
}

#else

void bls12381_g1_add_batch_ifma(bls12381_g1_affine_t *const *dst, uint8_t *const *dst_set,
                                const bls12381_g1_affine_t *const *src, unsigned n,
                                bls12381_fp_t *den, bls12381_fp_t *pre)
{
    (void)dst, (void)dst_set, (void)src, (void)n, (void)den, (void)pre; /* never called */
}

unsigned bls12381_g1_on_curve_x8_ifma(const bls12381_g1_affine_t *const pts[8])
{
    (void)pts; /* never called: not supported */
    return 0;
}

void bls12381_fp_mul_x8_ifma(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                             const bls12381_fp_t b[8])
{
    for (int k = 0; k < 8; k++)
        bls12381_fp_mul(&r[k], &a[k], &b[k]);
}

#endif
