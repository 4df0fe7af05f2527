/* fp254_ifma.c - see fp254_ifma.h (the kernels: fp254_ifma_kern.h):
 * eight BN254 products, the G1 MSM's batch-affine additions in lanes and
 * the key check's G1 curve equations (fp381_ifma.c's scheme for BN254). */
#include "fp254_ifma.h"

#include <stddef.h>

#include "fp254_ifma_kern.h"

void bn254_fp_mul_x8(bn254_fp_t r[8], const bn254_fp_t a[8], const bn254_fp_t b[8])
{
#if IFMA_X86
    if (ifma_enabled()) {
        bn254_fp_mul_x8_ifma(r, a, b);
        return;
    }
#endif
    for (int k = 0; k < 8; k++)
        bn254_fp_mul(&r[k], &a[k], &b[k]);
}

#if IFMA_X86

uint64_t fp254_p52[5];

IFMA_TARGET void bn254_fp_mul_x8_ifma(bn254_fp_t r[8], const bn254_fp_t a[8],
                                      const bn254_fp_t b[8])
{
    __m512i A[5], B[5], R[5];
    v254_load(A, a, 0xff);
    v254_load(B, b, 0xff);
    v254_mul(R, A, B);
    v254_store(r, R, 8);
}

IFMA_TARGET unsigned bn254_g1_on_curve_x8_ifma(const bn254_g1_affine_t *const pts[8])
{
    const unsigned oy = offsetof(bn254_g1_affine_t, y);
    const __m512i zero = _mm512_setzero_si512();
    __m512i va = _mm512_loadu_si512((const void *)pts);
    __m512i X[5], Y[5], L[5], R[5], Bc[5];
    uint64_t b52[5];
    v254_limbs_to_52(b52, bn254_g1_b.l);
    v254_load_p(X, va, 0, 0xff);
    v254_load_p(Y, va, oy, 0xff);
    v254_mul(L, Y, Y);
    v254_mul(R, X, X);
    v254_mul(R, R, X);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        Bc[j] = _mm512_set1_epi64((long long)b52[j]);
    v254_add(R, R, Bc);
    __mmask8 eq = 0xff, inf = 0xff;
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        eq &= _mm512_cmpeq_epi64_mask(L[j], R[j]);
        inf &= _mm512_cmpeq_epi64_mask(_mm512_or_si512(X[j], Y[j]), zero);
    }
    return (unsigned)(eq | inf);
}

/* D = the limb-major scratch group at base (v254_load_lm; `lanes` values,
 * the other lanes zero), every zero lane replaced by ONE (the batch's
 * running product passes over it); returns the mask of the zero lanes,
 * those past `lanes` included. */
IFMA_TARGET static inline __mmask8 load_den_254(__m512i D[5], const uint64_t *base,
                                                unsigned lanes, const __m512i ONE[5])
{
    v254_load_lm(D, base, lanes);
    __mmask8 z = v254_zero(D);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        D[j] = _mm512_mask_blend_epi64(z, D[j], ONE[j]);
    return z;
}

/* den and pre hold group g (entries 8g .. 8g + lanes - 1) limb-major
 * (v254_load_lm) in the space of its elements, so both passes move them
 * with vector loads and stores; the points come in as rows
 * (v254_load_rows). */
IFMA_TARGET void bn254_g1_add_batch_ifma(bn254_g1_affine_t *const *dst,
                                         uint8_t *const *dst_set,
                                         const bn254_g1_affine_t *const *src,
                                         unsigned n, bn254_fp_t *den, bn254_fp_t *pre)
{
    __m512i ONE[5], A[5], D[5], T[5], U[5];
    uint64_t one52[5];
    v254_limbs_to_52(one52, bn254_fp_mont_one.l);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        ONE[j] = A[j] = _mm512_set1_epi64((long long)one52[j]);
    unsigned groups = (n + 7) / 8;
    for (unsigned g = 0; g < groups; g++) { /* the denominators, as add_batch */
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        uint64_t *dl = den[8 * g].l;
        for (unsigned k = 0; k < lanes; k++) {
            const bn254_g1_affine_t *B = dst[8 * g + k], *P = src[8 * g + k];
            bn254_fp_t d;
            bn254_g1_affine_add_den(&d, B, P); /* x_P - x_B, 2y, or 0 */
            TMPL_UNROLL
            for (int w = 0; w < 4; w++)
                dl[w * lanes + k] = d.l[w];
        }
    }
    /* lane k's running product over entries 8g + k (a zero den counts as
     * one); pre = the product before the entry */
    for (unsigned g = 0; g < groups; g++) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        load_den_254(D, den[8 * g].l, lanes, ONE);
        v254_store_lm(pre[8 * g].l, A, lanes);
        v254_mul(A, A, D);
    }
    /* the eight lanes' running products inverted, one inversion */
    bn254_fp_t acc[8];
    v254_store(acc, A, 8);
    bn254_g1_coord_inv8_vartime(acc);
    v254_load(A, acc, 0xff);
    for (unsigned g = groups; g-- > 0;) {
        unsigned lanes = n - 8 * g < 8 ? n - 8 * g : 8;
        __mmask8 lm = (__mmask8)((1u << lanes) - 1);
        __mmask8 z = load_den_254(D, den[8 * g].l, lanes, ONE);
        v254_load_lm(U, pre[8 * g].l, lanes);
        v254_mul(T, A, U); /* 1/den */
        v254_mul(A, A, D);
        __mmask8 live = lm & (__mmask8)~z;
        for (unsigned k = 0; k < lanes; k++)
            if (z >> k & 1)
                *dst_set[8 * g + k] = 0; /* B + (-B) */
        if (!live)
            continue;
        __m512i BX[5], BY[5], PX[5], PY[5];
        uint64_t da[8], sa[8];
        v254_addrs(da, dst + 8 * g, live);
        v254_addrs(sa, src + 8 * g, live);
        v254_load_rows(BX, BY, da, 0, live);
        v254_load_rows(PX, PY, sa, 0, live);
        __mmask8 dbl = live;
        TMPL_UNROLL
        for (int j = 0; j < 5; j++)
            dbl &= _mm512_cmpeq_epi64_mask(BX[j], PX[j]);
        __mmask8 chord = live & (__mmask8)~dbl;
        if (chord) { /* B += P, x_B != x_P */
            __m512i L[5], X3[5], Y3[5];
            v254_sub(L, PY, BY);
            v254_mul(L, L, T);                  /* λ = (y_P - y_B)/(x_P - x_B) */
            v254_mul(X3, L, L);
            v254_sub(X3, X3, BX);
            v254_sub(X3, X3, PX);               /* x3 = λ² - x_B - x_P */
            v254_sub(Y3, BX, X3);
            v254_mul(Y3, Y3, L);
            v254_sub(Y3, Y3, BY);               /* y3 = λ(x_B - x3) - y_B */
            v254_store_rows(da, 0, X3, Y3, chord);
        }
        if (dbl) { /* λ = 3x²/2y, one by one */
            bn254_fp_t t[8];
            v254_store(t, T, lanes);
            for (unsigned k = 0; k < lanes; k++) {
                if (!(dbl >> k & 1))
                    continue;
                bn254_g1_affine_dbl_with_inv(dst[8 * g + k], &t[k]);
            }
        }
    }
}

/* p's digits, before main() */
__attribute__((constructor)) static void fp254_ifma_init(void)
{
    v254_limbs_to_52(fp254_p52, bn254_fp_modulus.l);
}

#else

void bn254_g1_add_batch_ifma(bn254_g1_affine_t *const *dst, uint8_t *const *dst_set,
                             const bn254_g1_affine_t *const *src, unsigned n,
                             bn254_fp_t *den, bn254_fp_t *pre)
{
    (void)dst, (void)dst_set, (void)src, (void)n, (void)den, (void)pre; /* never called */
}

unsigned bn254_g1_on_curve_x8_ifma(const bn254_g1_affine_t *const pts[8])
{
    (void)pts; /* never called: not supported */
    return 0;
}

void bn254_fp_mul_x8_ifma(bn254_fp_t r[8], const bn254_fp_t a[8], const bn254_fp_t b[8])
{
    for (int k = 0; k < 8; k++)
        bn254_fp_mul(&r[k], &a[k], &b[k]);
}

#endif
