/* fp254_ifma_g2.c - the BN254 G2 MSM's batch-affine additions in eight
 * AVX-512 IFMA lanes (see fp254_ifma.h): bn254_g1_add_batch_ifma's scheme
 * over Fp2 = Fp[u]/(u^2 + 1), each Fp2 element two digit vectors (c0, c1);
 * fp381_ifma_g2.c's products. */
#include "fp254_ifma.h"

#include <stddef.h>

#include "fp254_ifma_kern.h"

#if IFMA_X86

/* An Fp2 value per lane: c0 and c1 in digits. */
typedef struct {
    __m512i c0[5], c1[5];
} fp2v254;

/* R = A*B: Karatsuba, c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0
 * - a1 b1 (three products; fp2_tmpl.h's product, lane by lane). */
IFMA_TARGET static inline void fp2v254_mul(fp2v254 *R, const fp2v254 *A, const fp2v254 *B)
{
    __m512i v0[5], v1[5], sa[5], sb[5];
    v254_mul(v0, A->c0, B->c0);
    v254_mul(v1, A->c1, B->c1);
    v254_add(sa, A->c0, A->c1);
    v254_add(sb, B->c0, B->c1);
    v254_mul(sa, sa, sb);
    v254_sub(sa, sa, v0);
    v254_sub(R->c1, sa, v1);
    v254_sub(R->c0, v0, v1);
}

/* R = A^2: c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1. */
IFMA_TARGET static inline void fp2v254_sqr(fp2v254 *R, const fp2v254 *A)
{
    __m512i s[5], d[5], m[5];
    v254_add(s, A->c0, A->c1);
    v254_sub(d, A->c0, A->c1);
    v254_mul(m, A->c0, A->c1);
    v254_mul(R->c0, s, d);
    v254_add(R->c1, m, m);
}

IFMA_TARGET static inline void fp2v254_sub(fp2v254 *R, const fp2v254 *A, const fp2v254 *B)
{
    v254_sub(R->c0, A->c0, B->c0);
    v254_sub(R->c1, A->c1, B->c1);
}

/* Fp2 limb-major scratch (v254_load_lm): c0's 4 rows of `lanes` limbs,
 * then c1's, 8 * lanes words, the space of `lanes` elements. */
IFMA_TARGET static inline void fp2v254_load_lm(fp2v254 *A, const bn254_fp2_t *x, unsigned lanes)
{
    const uint64_t *base = x->c0.l;
    v254_load_lm(A->c0, base, lanes);
    v254_load_lm(A->c1, base + 4 * lanes, lanes);
}

IFMA_TARGET static inline void fp2v254_store_lm(bn254_fp2_t *x, const fp2v254 *A, unsigned lanes)
{
    uint64_t *base = x->c0.l;
    v254_store_lm(base, A->c0, lanes);
    v254_store_lm(base + 4 * lanes, A->c1, lanes);
}

/* D = the den group at x (limb-major), every zero lane replaced by ONE;
 * returns the mask of the zero lanes, those past `lanes` included. */
IFMA_TARGET static inline __mmask8 fp2v254_load_den(fp2v254 *D, const bn254_fp2_t *x,
                                                    unsigned lanes, const fp2v254 *ONE)
{
    fp2v254_load_lm(D, x, lanes);
    __mmask8 z = v254_zero(D->c0) & v254_zero(D->c1);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        D->c0[j] = _mm512_mask_blend_epi64(z, D->c0[j], ONE->c0[j]);
        D->c1[j] = _mm512_mask_blend_epi64(z, D->c1[j], ONE->c1[j]);
    }
    return z;
}

/* Eight Fp2 values of consecutive elements x[k] (k < lanes), element-wise
 * (the inversion's eight accumulators). */
IFMA_TARGET static inline void fp2v254_store(bn254_fp2_t *x, const fp2v254 *A, unsigned lanes)
{
    bn254_fp_t c0[8], c1[8];
    v254_store(c0, A->c0, lanes);
    v254_store(c1, A->c1, lanes);
    for (unsigned k = 0; k < lanes; k++)
        x[k].c0 = c0[k], x[k].c1 = c1[k];
}

IFMA_TARGET static inline void fp2v254_load(fp2v254 *A, const bn254_fp2_t x[8])
{
    bn254_fp_t c0[8], c1[8];
    for (int k = 0; k < 8; k++)
        c0[k] = x[k].c0, c1[k] = x[k].c1;
    v254_load(A->c0, c0, 0xff);
    v254_load(A->c1, c1, 0xff);
}

IFMA_TARGET void bn254_g2_add_batch_ifma(bn254_g2_affine_t *const *dst,
                                         uint8_t *const *dst_set,
                                         const bn254_g2_affine_t *const *src,
                                         unsigned n, bn254_fp2_t *den, bn254_fp2_t *pre)
{
    const unsigned oy = offsetof(bn254_g2_affine_t, y);
    fp2v254 ONE, A, D, T, U;
    uint64_t one52[5];
    v254_limbs_to_52(one52, bn254_fp_mont_one.l);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        ONE.c0[j] = A.c0[j] = _mm512_set1_epi64((long long)one52[j]);
        ONE.c1[j] = A.c1[j] = _mm512_setzero_si512();
    }
    unsigned groups = (n + 7) / 8;
    for (unsigned g = 0; g < groups; g++) { /* the denominators, as add_batch */
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        uint64_t *dl = den[8 * g].c0.l;
        for (unsigned k = 0; k < lanes; k++) {
            const bn254_g2_affine_t *B = dst[8 * g + k], *P = src[8 * g + k];
            bn254_fp2_t d;
            bn254_g2_affine_add_den(&d, B, P); /* x_P - x_B, 2y, or 0 */
            TMPL_UNROLL
            for (int w = 0; w < 4; w++) {
                dl[w * lanes + k] = d.c0.l[w];
                dl[(4 + w) * lanes + k] = d.c1.l[w];
            }
        }
    }
    for (unsigned g = 0; g < groups; g++) { /* lane k: entries 8g + k */
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        fp2v254_load_den(&D, den + 8 * g, lanes, &ONE);
        fp2v254_store_lm(pre + 8 * g, &A, lanes);
        fp2v254_mul(&A, &A, &D);
    }
    bn254_fp2_t acc[8];
    fp2v254_store(acc, &A, 8);
    bn254_g2_coord_inv8_vartime(acc);
    fp2v254_load(&A, acc);
    for (unsigned g = groups; g-- > 0;) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        __mmask8 z = fp2v254_load_den(&D, den + 8 * g, lanes, &ONE);
        fp2v254_load_lm(&U, pre + 8 * g, lanes);
        fp2v254_mul(&T, &A, &U); /* 1/den */
        fp2v254_mul(&A, &A, &D);
        __mmask8 live = lm & (__mmask8)~z;
        for (unsigned k = 0; k < lanes; k++)
            if (z >> k & 1)
                *dst_set[8 * g + k] = 0; /* B + (-B) */
        if (!live)
            continue;
        fp2v254 BX, BY, PX, PY;
        uint64_t da[8], sa[8];
        v254_addrs(da, dst + 8 * g, live);
        v254_addrs(sa, src + 8 * g, live);
        v254_load_rows(BX.c0, BX.c1, da, 0, live);
        v254_load_rows(BY.c0, BY.c1, da, oy, live);
        v254_load_rows(PX.c0, PX.c1, sa, 0, live);
        v254_load_rows(PY.c0, PY.c1, sa, oy, live);
        __mmask8 dbl = live;
        TMPL_UNROLL
        for (int j = 0; j < 5; j++)
            dbl &= _mm512_cmpeq_epi64_mask(BX.c0[j], PX.c0[j]) &
                   _mm512_cmpeq_epi64_mask(BX.c1[j], PX.c1[j]);
        __mmask8 chord = live & (__mmask8)~dbl;
        if (chord) { /* B += P, x_B != x_P */
            fp2v254 L, X3, Y3;
            fp2v254_sub(&L, &PY, &BY);
            fp2v254_mul(&L, &L, &T);            /* λ = (y_P - y_B)/(x_P - x_B) */
            fp2v254_sqr(&X3, &L);
            fp2v254_sub(&X3, &X3, &BX);
            fp2v254_sub(&X3, &X3, &PX);         /* x3 = λ² - x_B - x_P */
            fp2v254_sub(&Y3, &BX, &X3);
            fp2v254_mul(&Y3, &Y3, &L);
            fp2v254_sub(&Y3, &Y3, &BY);         /* y3 = λ(x_B - x3) - y_B */
            v254_store_rows(da, 0, X3.c0, X3.c1, chord);
            v254_store_rows(da, oy, Y3.c0, Y3.c1, chord);
        }
        if (dbl) { /* λ = 3x²/2y, one by one */
            bn254_fp2_t t[8];
            fp2v254_store(t, &T, lanes);
            for (unsigned k = 0; k < lanes; k++) {
                if (!(dbl >> k & 1))
                    continue;
                bn254_g2_affine_dbl_with_inv(dst[8 * g + k], &t[k]);
            }
        }
    }
}

#else

void bn254_g2_add_batch_ifma(bn254_g2_affine_t *const *dst, uint8_t *const *dst_set,
                             const bn254_g2_affine_t *const *src, unsigned n,
                             bn254_fp2_t *den, bn254_fp2_t *pre)
{
    (void)dst, (void)dst_set, (void)src, (void)n, (void)den, (void)pre; /* never called */
}

#endif
