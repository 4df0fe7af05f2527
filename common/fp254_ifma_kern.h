/*
 * fp254_ifma_kern.h - the AVX-512 IFMA building blocks of fp254_ifma.c
 * and fp254_ifma_g2.c: BN254 Fq arithmetic eight lanes at a time (static
 * inline, compiled for AVX-512F + IFMA by target attribute: callers run
 * them only where ifma_supported() is 1). fp381_ifma_kern.h's scheme for
 * the 254-bit p.
 *
 * Lane k of vector X[j] is digit j of operand k in radix 2^52: 5 digits,
 * 260 bits, for values < p < 2^254.
 *
 * Product (v254_mul): the 10 columns of a*b, column by column with the
 * Montgomery reduction folded in (Montgomery, "Modular multiplication
 * without trial division", Math. Comp. 1985, word by word in radix 2^52;
 * Koc, Acar and Kaliski's FIPS order). 4 rounds with a 52-bit m = c*(-p^-1)
 * mod 2^52 divide by 2^208, a fifth with m mod 2^48 makes the low 48 bits
 * zero, and a shift by 48 bits divides by the rest: 2^256 in all, the
 * scalar path's R, so the results are bn254_fp_mul's limbs. Bound: a, b
 * < p and m < 2^256 give (a*b + m*p)/2^256 < p*(p/2^256 + 1) < 2p < 2^255,
 * which fits the 5 digits; one conditional subtraction of p finishes. The
 * sum before the shift is < 2^48 * 2p < 2^303: 6 digits, the carry out of
 * the last column zero. A column adds at most 21 terms below 2^52 and a
 * carry (vpmadd52 lanes take 2^12 before they overflow). -p^-1 mod 2^52
 * and mod 2^48 are the low bits of bn254_fp_n0 = -p^-1 mod 2^64.
 *
 * Conversions: the 4 little-endian 64-bit limbs of eight elements come in
 * by gathers (consecutive elements) or as four vectors of limbs (the
 * "limb-major" scratch layout, v254_load_lm), or, for the eight affine
 * points behind the MSM's pointer arrays, as eight 64-byte rows
 * transposed in registers (v254_load_rows); they are cut into digits with
 * shifts and go out the same ways.
 */
#ifndef SLOTPROVE_FP254_IFMA_KERN_H
#define SLOTPROVE_FP254_IFMA_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "bn254.h"
#include "ifma.h"

#if IFMA_X86

/* p in radix 2^52 (5 digits), filled before main() (fp254_ifma.c). */
extern uint64_t fp254_p52[5];

/* The 4 little-endian 64-bit limbs at l (a value < 2^256) to 5 radix-2^52
 * digits. */
static inline void v254_limbs_to_52(uint64_t d[5], const uint64_t l[4])
{
    for (int j = 0; j < 5; j++) {
        unsigned bit = 52 * j, w = bit / 64, s = bit % 64;
        uint64_t v = l[w] >> s;
        if (s > 12 && w + 1 < 4)
            v |= l[w + 1] << (64 - s);
        d[j] = v & M52;
    }
}

/* X = the digits of the values whose 64-bit limbs are V[0..3]. */
IFMA_TARGET static inline void v254_split(__m512i X[5], const __m512i V[4])
{
    const __m512i m = _mm512_set1_epi64((long long)M52);
    X[0] = _mm512_and_si512(V[0], m);
    X[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[0], 52),
                                            _mm512_slli_epi64(V[1], 12)), m);
    X[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[1], 40),
                                            _mm512_slli_epi64(V[2], 24)), m);
    X[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[2], 28),
                                            _mm512_slli_epi64(V[3], 36)), m);
    X[4] = _mm512_srli_epi64(V[3], 16);
}

/* O[w] = limb w of the values in D's lanes (digits, < 2^256). */
IFMA_TARGET static inline void v254_join(__m512i O[4], const __m512i D[5])
{
    O[0] = _mm512_or_si512(D[0], _mm512_slli_epi64(D[1], 52));
    O[1] = _mm512_or_si512(_mm512_srli_epi64(D[1], 12), _mm512_slli_epi64(D[2], 40));
    O[2] = _mm512_or_si512(_mm512_srli_epi64(D[2], 24), _mm512_slli_epi64(D[3], 28));
    O[3] = _mm512_or_si512(_mm512_srli_epi64(D[3], 36), _mm512_slli_epi64(D[4], 16));
}

/* X = lane k: x[k] for the lanes in mask (x: consecutive elements), 0 in
 * the others (not read). */
IFMA_TARGET static inline void v254_load(__m512i X[5], const bn254_fp_t *x, __mmask8 mask)
{
    const __m512i idx = _mm512_setr_epi64(0, 4, 8, 12, 16, 20, 24, 28);
    const __m512i zero = _mm512_setzero_si512();
    __m512i V[4];
    TMPL_UNROLL
    for (int w = 0; w < 4; w++)
        V[w] = _mm512_mask_i64gather_epi64(zero, mask, idx, (const void *)&x[0].l[w], 8);
    v254_split(X, V);
}

/* x[k] = lane k of D for k < lanes (x: consecutive elements), via four
 * vector stores read back element by element (store-forwarded: cheaper
 * than scatters). */
IFMA_TARGET static inline void v254_store(bn254_fp_t *x, const __m512i D[5], unsigned lanes)
{
    uint64_t buf[4][8] __attribute__((aligned(64)));
    __m512i O[4];
    v254_join(O, D);
    TMPL_UNROLL
    for (int w = 0; w < 4; w++)
        _mm512_store_si512((void *)buf[w], O[w]);
    for (unsigned k = 0; k < lanes; k++)
        TMPL_UNROLL
        for (int w = 0; w < 4; w++)
            x[k].l[w] = buf[w][k];
}

/* X = lane k: the element at byte address addr[k] + off for the lanes in
 * mask, 0 in the others (not read). */
IFMA_TARGET static inline void v254_load_p(__m512i X[5], __m512i addr, unsigned off,
                                           __mmask8 mask)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i V[4];
    TMPL_UNROLL
    for (int w = 0; w < 4; w++) /* base "pointer" 0: addr holds the addresses */
        V[w] = _mm512_mask_i64gather_epi64(zero, mask, addr,
                                           (const void *)(uintptr_t)(off + 8 * w), 1);
    v254_split(X, V);
}

/* Limb-major scratch: the values of lanes k < lanes as 4 rows of `lanes`
 * limbs, limb w of lane k at base[w * lanes + k] (4 * lanes words, the
 * space of `lanes` elements). X = those values' digits, 0 in the other
 * lanes. */
IFMA_TARGET static inline void v254_load_lm(__m512i X[5], const uint64_t *base, unsigned lanes)
{
    __mmask8 lm = (__mmask8)((1u << lanes) - 1);
    __m512i V[4];
    TMPL_UNROLL
    for (int w = 0; w < 4; w++)
        V[w] = _mm512_maskz_loadu_epi64(lm, (const void *)(base + w * lanes));
    v254_split(X, V);
}

/* The limb-major scratch at base = lanes k < lanes of D (v254_load_lm). */
IFMA_TARGET static inline void v254_store_lm(uint64_t *base, const __m512i D[5], unsigned lanes)
{
    __mmask8 lm = (__mmask8)((1u << lanes) - 1);
    __m512i O[4];
    v254_join(O, D);
    TMPL_UNROLL
    for (int w = 0; w < 4; w++)
        _mm512_mask_storeu_epi64((void *)(base + w * lanes), lm, O[w]);
}

/* The 8x8 transpose of 64-bit words,
 * R[j] lane k = T[k] lane j (unpack within 128-bit pairs, then two rounds
 * of 128-bit lane shuffles). */
IFMA_TARGET static inline void v254_transpose8(__m512i R[8], const __m512i T[8])
{
    __m512i t[8], u[8];
    TMPL_UNROLL
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(T[2 * i], T[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(T[2 * i], T[2 * i + 1]);
    }
    /* t[0]: 128-bit lanes (r0 r1)[0], [2], [4], [6]; t[1]: [1], [3], [5], [7] */
    u[0] = _mm512_shuffle_i64x2(t[0], t[2], 0x88); /* [0] [4] of rows 0-3 */
    u[1] = _mm512_shuffle_i64x2(t[0], t[2], 0xdd); /* [2] [6] */
    u[2] = _mm512_shuffle_i64x2(t[1], t[3], 0x88); /* [1] [5] */
    u[3] = _mm512_shuffle_i64x2(t[1], t[3], 0xdd); /* [3] [7] */
    u[4] = _mm512_shuffle_i64x2(t[4], t[6], 0x88); /* the same, rows 4-7 */
    u[5] = _mm512_shuffle_i64x2(t[4], t[6], 0xdd);
    u[6] = _mm512_shuffle_i64x2(t[5], t[7], 0x88);
    u[7] = _mm512_shuffle_i64x2(t[5], t[7], 0xdd);
    R[0] = _mm512_shuffle_i64x2(u[0], u[4], 0x88);
    R[4] = _mm512_shuffle_i64x2(u[0], u[4], 0xdd);
    R[2] = _mm512_shuffle_i64x2(u[1], u[5], 0x88);
    R[6] = _mm512_shuffle_i64x2(u[1], u[5], 0xdd);
    R[1] = _mm512_shuffle_i64x2(u[2], u[6], 0x88);
    R[5] = _mm512_shuffle_i64x2(u[2], u[6], 0xdd);
    R[3] = _mm512_shuffle_i64x2(u[3], u[7], 0x88);
    R[7] = _mm512_shuffle_i64x2(u[3], u[7], 0xdd);
}

/* addr[k] = ptrs[k] (an array of pointers) as an integer for the lanes in
 * mask, 0 in the others (not read). */
IFMA_TARGET static inline void v254_addrs(uint64_t addr[8], const void *ptrs, __mmask8 mask)
{
    _mm512_storeu_si512((void *)addr, _mm512_maskz_loadu_epi64(mask, ptrs));
}

/* A, B = lane k: the 64 bytes at addr[k] + off as two 4-limb values (the
 * first 32 bytes A's: an affine G1 point's x and y, or one G2 coordinate's
 * c0 and c1) for the lanes in mask, 0 in the others (not read): eight row
 * loads and a transpose. */
IFMA_TARGET static inline void v254_load_rows(__m512i A[5], __m512i B[5], const uint64_t addr[8],
                                              unsigned off, __mmask8 mask)
{
    __m512i T[8], C[8];
    TMPL_UNROLL
    for (int k = 0; k < 8; k++)
        T[k] = _mm512_maskz_loadu_epi64((__mmask8)-(mask >> k & 1),
                                        (const void *)(uintptr_t)(addr[k] + off));
    v254_transpose8(C, T);
    v254_split(A, C);
    v254_split(B, C + 4);
}

/* The 64 bytes at addr[k] + off = (lane k of A, lane k of B), for the
 * lanes in mask. */
IFMA_TARGET static inline void v254_store_rows(const uint64_t addr[8], unsigned off,
                                               const __m512i A[5], const __m512i B[5],
                                               __mmask8 mask)
{
    __m512i C[8], T[8];
    v254_join(C, A);
    v254_join(C + 4, B);
    v254_transpose8(T, C);
    TMPL_UNROLL
    for (int k = 0; k < 8; k++)
        if (mask >> k & 1)
            _mm512_storeu_si512((void *)(uintptr_t)(addr[k] + off), T[k]);
}

/* R = A*B*2^-256 mod p, fully reduced, all three in digits (A, B < p):
 * the header's product. Column k sums its product terms and the terms of
 * the m already known, then (k < 5) takes its own m; only the current
 * column's sums, A, B and the five m are live. */
IFMA_TARGET static inline void v254_mul(__m512i R[5], const __m512i A[5], const __m512i B[5])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    const __m512i m48 = _mm512_set1_epi64((1LL << 48) - 1);
    const __m512i n0 = _mm512_set1_epi64((long long)(bn254_fp_n0 & M52));
    __m512i P[5], Mv[5], d[6], carry = zero;
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        P[j] = _mm512_set1_epi64((long long)fp254_p52[j]);
    TMPL_UNROLL
    for (int k = 0; k < 10; k++) {
        __m512i pl = zero, ph = zero, rl = zero, rh = zero;
        TMPL_UNROLL
        for (int i = 0; i < 5; i++) {
            int j = k - i;
            if (j >= 0 && j < 5)
                pl = _mm512_madd52lo_epu64(pl, A[i], B[j]);
            if (j >= 1 && j < 6)
                ph = _mm512_madd52hi_epu64(ph, A[i], B[j - 1]);
            if (i < k && j >= 0 && j < 5)
                rl = _mm512_madd52lo_epu64(rl, Mv[i], P[j]);
            if (i < k && j >= 1 && j < 6)
                rh = _mm512_madd52hi_epu64(rh, Mv[i], P[j - 1]);
        }
        __m512i acc = _mm512_add_epi64(_mm512_add_epi64(pl, ph), _mm512_add_epi64(rl, rh));
        acc = _mm512_add_epi64(acc, carry);
        if (k < 5) {
            __m512i m = _mm512_madd52lo_epu64(zero, acc, n0);
            if (k == 4) /* the last round divides by 2^48 only */
                m = _mm512_and_si512(m, m48);
            Mv[k] = m;
            acc = _mm512_madd52lo_epu64(acc, m, P[0]);
        }
        if (k >= 4)
            d[k - 4] = _mm512_and_si512(acc, m52);
        carry = _mm512_srli_epi64(acc, 52);
    }
    /* d: the sum / 2^208 in digits, its low 48 bits zero; divide by 2^48 */
    __m512i S[5], bw = zero;
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        R[j] = _mm512_or_si512(_mm512_srli_epi64(d[j], 48),
                               _mm512_and_si512(_mm512_slli_epi64(d[j + 1], 4), m52));
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) { /* S = R - p, the borrow in bit 63 */
        __m512i s = _mm512_sub_epi64(_mm512_sub_epi64(R[j], P[j]), bw);
        bw = _mm512_srli_epi64(s, 63);
        S[j] = _mm512_and_si512(s, m52);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(bw, zero); /* R >= p: take S */
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        R[j] = _mm512_mask_blend_epi64(ge, R[j], S[j]);
}

/* R = A - B mod p (digits, both < p): the borrow chain, then p added back
 * where it borrowed out. */
IFMA_TARGET static inline void v254_sub(__m512i R[5], const __m512i A[5], const __m512i B[5])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    __m512i S[5], bw = zero, c = zero;
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i s = _mm512_sub_epi64(_mm512_sub_epi64(A[j], B[j]), bw);
        bw = _mm512_srli_epi64(s, 63);
        S[j] = _mm512_and_si512(s, m52);
    }
    __mmask8 neg = _mm512_cmpneq_epi64_mask(bw, zero);
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(S[j], _mm512_set1_epi64((long long)fp254_p52[j])), c);
        c = _mm512_srli_epi64(t, 52);
        R[j] = _mm512_mask_blend_epi64(neg, S[j], _mm512_and_si512(t, m52));
    }
}

/* R = A + B mod p (digits, both < p). */
IFMA_TARGET static inline void v254_add(__m512i R[5], const __m512i A[5], const __m512i B[5])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    __m512i S[5], D[5], c = zero, bw = zero;
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(A[j], B[j]), c);
        c = _mm512_srli_epi64(t, 52);
        S[j] = _mm512_and_si512(t, m52);
    }
    TMPL_UNROLL
    for (int j = 0; j < 5; j++) { /* D = S - p */
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(S[j], _mm512_set1_epi64((long long)fp254_p52[j])), bw);
        bw = _mm512_srli_epi64(t, 63);
        D[j] = _mm512_and_si512(t, m52);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(bw, zero); /* S >= p (S < 2p < 2^260) */
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        R[j] = _mm512_mask_blend_epi64(ge, S[j], D[j]);
}

/* Mask of the lanes whose value (digits) is zero. */
IFMA_TARGET static inline __mmask8 v254_zero(const __m512i X[5])
{
    __m512i o = X[0];
    TMPL_UNROLL
    for (int j = 1; j < 5; j++)
        o = _mm512_or_si512(o, X[j]);
    return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

#endif /* IFMA_X86 */
#endif
