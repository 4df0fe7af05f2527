/* fp381_ifma_g2.c — the G2 MSM's batch-affine additions in eight AVX-512
 * IFMA lanes (see fp381_ifma.h): bls12381_g1_add_batch_ifma's scheme over
 * Fp2 = Fp[u]/(u^2 + 1), each Fp2 element two digit vectors (c0, c1). */
#include "fp381_ifma.h"

#include "fp381_ifma_kern.h"

#if FP381_IFMA

/* An Fp2 value per lane: c0 and c1 in digits. */
typedef struct {
    __m512i c0[8], c1[8];
} fp2v;

/* R = A*B: Karatsuba, c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0
 * - a1 b1 (three products; fp2_tmpl.h's product, lane by lane). */
IFMA_TARGET static inline void fp2v_mul(fp2v *R, const fp2v *A, const fp2v *B)
{
    __m512i v0[8], v1[8], sa[8], sb[8];
    mont_mul_52x8(v0, A->c0, B->c0);
    mont_mul_52x8(v1, A->c1, B->c1);
    add_52x8(sa, A->c0, A->c1);
    add_52x8(sb, B->c0, B->c1);
    mont_mul_52x8(sa, sa, sb);
    sub_52x8(sa, sa, v0);
    sub_52x8(R->c1, sa, v1);
    sub_52x8(R->c0, v0, v1);
}

/* R = A^2: c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1. */
IFMA_TARGET static inline void fp2v_sqr(fp2v *R, const fp2v *A)
{
    __m512i s[8], d[8], m[8];
    add_52x8(s, A->c0, A->c1);
    sub_52x8(d, A->c0, A->c1);
    mont_mul_52x8(m, A->c0, A->c1);
    mont_mul_52x8(R->c0, s, d);
    add_52x8(R->c1, m, m);
}

IFMA_TARGET static inline void fp2v_sub(fp2v *R, const fp2v *A, const fp2v *B)
{
    sub_52x8(R->c0, A->c0, B->c0);
    sub_52x8(R->c1, A->c1, B->c1);
}

/* A = lane k: the Fp2 element at byte address addr[k] + off (mask lanes). */
IFMA_TARGET static inline void fp2v_loadp(fp2v *A, __m512i addr, unsigned off, __mmask8 mask)
{
    load_52p(A->c0, addr, off, mask);
    load_52p(A->c1, addr, off + (unsigned)sizeof(bls12381_fp_t), mask);
}

/* A = lane k: x[k] for the mask lanes (x: consecutive elements). */
IFMA_TARGET static inline void fp2v_load(fp2v *A, const bls12381_fp2_t *x, __mmask8 mask)
{
    const uint64_t *b = (const uint64_t *)x;
    __m512i addr = _mm512_add_epi64(_mm512_set1_epi64((long long)(uintptr_t)b),
                                    _mm512_setr_epi64(0, 96, 192, 288, 384, 480, 576, 672));
    fp2v_loadp(A, addr, 0, mask);
}

/* x[k] = lane k of A for k < lanes. */
IFMA_TARGET static inline void fp2v_store(bls12381_fp2_t *x, const fp2v *A, unsigned lanes)
{
    uint64_t a[8];
    for (unsigned k = 0; k < 8; k++)
        a[k] = (uint64_t)(uintptr_t)&x[k < lanes ? k : 0];
    __mmask8 m = (__mmask8)((1u << lanes) - 1);
    store_52p(a, 0, A->c0, m);
    store_52p(a, (unsigned)sizeof(bls12381_fp_t), A->c1, m);
}

/* Mask of the lanes whose Fp2 value is zero. */
IFMA_TARGET static inline __mmask8 fp2v_zero(const fp2v *A)
{
    return zero_52x8(A->c0) & zero_52x8(A->c1);
}

/* For the lanes in mask: *dst[k] += *src[k] (chord), T = 1/(x_P - x_B). */
/* D = den[k] for the lanes k in lm (the others zero), every zero lane
 * replaced by ONE (the batch's running product passes over it); returns
 * the mask of the lanes whose den[k] is zero, those outside lm included. */
IFMA_TARGET static inline __mmask8 fp2v_load_den(fp2v *D, const bls12381_fp2_t *den, __mmask8 lm,
                                                 const fp2v *ONE)
{
    fp2v_load(D, den, lm);
    __mmask8 z = fp2v_zero(D);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        D->c0[j] = _mm512_mask_blend_epi64(z, D->c0[j], ONE->c0[j]);
        D->c1[j] = _mm512_mask_blend_epi64(z, D->c1[j], ONE->c1[j]);
    }
    return z;
}

IFMA_TARGET static inline void chord_g2(bls12381_g2_affine_t *const *dst,
                                        const bls12381_g2_affine_t *const *src, const fp2v *T,
                                        __mmask8 mask)
{
    const unsigned oy = offsetof(bls12381_g2_affine_t, y);
    __m512i vd = _mm512_maskz_loadu_epi64(mask, (const void *)dst);
    __m512i vs = _mm512_maskz_loadu_epi64(mask, (const void *)src);
    fp2v X, Y, L, BX, BY, X3, Y3;
    fp2v_loadp(&BY, vd, oy, mask);
    fp2v_loadp(&Y, vs, oy, mask);
    fp2v_sub(&Y, &Y, &BY);
    fp2v_mul(&L, &Y, T);                    /* λ */
    fp2v_loadp(&BX, vd, 0, mask);
    fp2v_loadp(&X, vs, 0, mask);
    fp2v_sqr(&X3, &L);
    fp2v_sub(&X3, &X3, &BX);
    fp2v_sub(&X3, &X3, &X);                 /* x3 = λ² - x_B - x_P */
    fp2v_sub(&Y3, &BX, &X3);
    fp2v_mul(&Y3, &Y3, &L);
    fp2v_sub(&Y3, &Y3, &BY);                /* y3 = λ(x_B - x3) - y_B */
    uint64_t a[8];
    _mm512_storeu_si512((void *)a, vd);
    store_52p(a, 0, X3.c0, mask);
    store_52p(a, (unsigned)sizeof(bls12381_fp_t), X3.c1, mask);
    store_52p(a, oy, Y3.c0, mask);
    store_52p(a, oy + (unsigned)sizeof(bls12381_fp_t), Y3.c1, mask);
}

IFMA_TARGET void bls12381_g2_add_batch_ifma(bls12381_g2_affine_t *const *dst,
                                            uint8_t *const *dst_set,
                                            const bls12381_g2_affine_t *const *src,
                                            unsigned n, bls12381_fp2_t *den,
                                            bls12381_fp2_t *pre)
{
    fp2v ONE, A, D, T, U;
    uint64_t one52[8];
    limbs_to_52(one52, bls12381_fp_mont_one.l);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        ONE.c0[j] = A.c0[j] = _mm512_set1_epi64((long long)one52[j]);
        ONE.c1[j] = A.c1[j] = _mm512_setzero_si512();
    }
    for (unsigned i = 0; i < n; i++) { /* the denominators, as add_batch */
        const bls12381_g2_affine_t *B = dst[i], *P = src[i];
        bls12381_g2_affine_add_den(&den[i], B, P); /* x_P - x_B, 2y, or 0 */
    }
    unsigned groups = (n + 7) / 8;
    for (unsigned g = 0; g < groups; g++) { /* lane k: entries 8g + k */
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        fp2v_load_den(&D, den + 8 * g, lm, &ONE);
        fp2v_store(pre + 8 * g, &A, lanes);
        fp2v_mul(&A, &A, &D);
    }
    bls12381_fp2_t acc[8];
    fp2v_store(acc, &A, 8);
    bls12381_g2_coord_inv8_vartime(acc);
    fp2v_load(&A, acc, 0xff);
    for (unsigned g = groups; g-- > 0;) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        __mmask8 z = fp2v_load_den(&D, den + 8 * g, lm, &ONE);
        fp2v_load(&U, pre + 8 * g, lm);
        fp2v_mul(&T, &A, &U); /* 1/den */
        fp2v_mul(&A, &A, &D);
        __mmask8 chord = lm & (__mmask8)~z, dbl = 0;
        for (unsigned k = 0; k < lanes; k++) {
            unsigned i = 8 * g + k;
            if (z >> k & 1)
                *dst_set[i] = 0; /* B + (-B) */
            else if (bls12381_fp2_eq(&dst[i]->x, &src[i]->x))
                dbl |= (__mmask8)(1u << k);
        }
        chord &= (__mmask8)~dbl;
        if (chord)
            chord_g2(dst + 8 * g, src + 8 * g, &T, chord);
        if (dbl) { /* λ = 3x²/2y, one by one */
            bls12381_fp2_t t[8];
            fp2v_store(t, &T, lanes);
            for (unsigned k = 0; k < lanes; k++) {
                if (!(dbl >> k & 1))
                    continue;
                bls12381_g2_affine_dbl_with_inv(dst[8 * g + k], &t[k]);
            }
        }
    }
}

#else

void bls12381_g2_add_batch_ifma(bls12381_g2_affine_t *const *dst, uint8_t *const *dst_set,
                                const bls12381_g2_affine_t *const *src, unsigned n,
                                bls12381_fp2_t *den, bls12381_fp2_t *pre)
{
    (void)dst, (void)dst_set, (void)src, (void)n, (void)den, (void)pre; /* never called */
}

#endif
