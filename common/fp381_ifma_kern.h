/*
 * fp381_ifma_kern.h - the AVX-512 IFMA building blocks of fp381_ifma.c and
 * fp381_ifma_g2.c (static inline, compiled for AVX-512F + IFMA by target
 * attribute: callers run them only where fp381_ifma_supported() is 1).
 *
 * The kernels hold the eight products' operands "transposed": lane k of
 * vector X[j] is digit j of operand k in radix 2^52 (8 digits, 416 bits,
 * for 381-bit values). vpmadd52luq/vpmadd52huq add the low/high 52 bits of
 * the 104-bit product of two digits to a 64-bit lane, so a column sums up
 * to 2^12 such terms before it overflows; columns here get at most 32.
 *
 * Product: the 16 columns of a*b (64 low and 64 high halves), column by
 * column with the reduction folded in (mont_mul_52x8).
 * Reduction: Montgomery, digit by digit (the word-by-word REDC of
 * Montgomery, "Modular multiplication without trial division", Math.
 * Comp. 1985, in radix 2^52): 7 rounds with a 52-bit m = c*(-p^-1) mod
 * 2^52 divide by 2^364, an eighth with m mod 2^20 makes the low 20 bits
 * zero, and a shift by 20 bits divides by the rest: 2^384 in all, the
 * scalar path's R, so the results are the scalar product's limbs. The sum
 * (a*b + m*p)/2^384 < 2p (a, b < p < 2^381, m < 2^384); one conditional
 * subtraction of p finishes. -p^-1 mod 2^52 and mod 2^20 are the low bits
 * of the scalar path's n0 = -p^-1 mod 2^64.
 *
 * Conversions: eight elements' limbs come in by gathers (consecutive
 * elements, or any addresses for the points behind the MSM's pointer
 * arrays) and are cut into digits with shifts; they go out through six
 * vector stores read back limb by limb. On the 2-core Zen 4 dev box a
 * product costs ~42 cycles per lane in registers, ~70 with the
 * conversions, against ~124 for the scalar mulx/adcx/adox product.
 */
#ifndef SLOTPROVE_FP381_IFMA_KERN_H
#define SLOTPROVE_FP381_IFMA_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "bls12381.h"
#include "ifma.h"

#define FP381_IFMA IFMA_X86

#if FP381_IFMA

/* p in radix 2^52 (8 digits), filled before main() (fp381_ifma.c). */
extern uint64_t fp381_p52[8];

/* The 6 little-endian 64-bit limbs at l to 8 radix-2^52 digits. */
static inline void limbs_to_52(uint64_t d[8], const uint64_t l[6])
{
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * j, w = bit / 64, s = bit % 64;
        uint64_t v = l[w] >> s;
        if (s > 12 && w + 1 < 6)
            v |= l[w + 1] << (64 - s);
        d[j] = v & M52;
    }
}

/* X = the digits of the values whose 64-bit limbs are V[0..5]. */
IFMA_TARGET static inline void split_52(__m512i X[8], const __m512i V[6])
{
    const __m512i m = _mm512_set1_epi64((long long)M52);
    X[0] = _mm512_and_si512(V[0], m);
    X[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[0], 52),
                                            _mm512_slli_epi64(V[1], 12)), m);
    X[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[1], 40),
                                            _mm512_slli_epi64(V[2], 24)), m);
    X[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[2], 28),
                                            _mm512_slli_epi64(V[3], 36)), m);
    X[4] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[3], 16),
                                            _mm512_slli_epi64(V[4], 48)), m);
    X[5] = _mm512_and_si512(_mm512_srli_epi64(V[4], 4), m);
    X[6] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(V[4], 56),
                                            _mm512_slli_epi64(V[5], 8)), m);
    X[7] = _mm512_srli_epi64(V[5], 44);
}

/* buf[w][k] = limb w of the value in lane k of D (digits, < 2^384), via
 * six vector stores (read back element by element, store-forwarded:
 * cheaper than scatters). */
IFMA_TARGET static inline void join_52(uint64_t buf[6][8], const __m512i D[8])
{
    __m512i O[6];
    O[0] = _mm512_or_si512(D[0], _mm512_slli_epi64(D[1], 52));
    O[1] = _mm512_or_si512(_mm512_srli_epi64(D[1], 12), _mm512_slli_epi64(D[2], 40));
    O[2] = _mm512_or_si512(_mm512_srli_epi64(D[2], 24), _mm512_slli_epi64(D[3], 28));
    O[3] = _mm512_or_si512(_mm512_srli_epi64(D[3], 36), _mm512_slli_epi64(D[4], 16));
    O[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(D[4], 48),
                                           _mm512_slli_epi64(D[5], 4)),
                           _mm512_slli_epi64(D[6], 56));
    O[5] = _mm512_or_si512(_mm512_srli_epi64(D[6], 8), _mm512_slli_epi64(D[7], 44));
    TMPL_UNROLL
    for (int w = 0; w < 6; w++)
        _mm512_store_si512((void *)buf[w], O[w]);
}

/* X = lane k: x[k] for the lanes in mask (x: consecutive elements), 0 in
 * the others (not read). */
IFMA_TARGET static inline void load_52(__m512i X[8], const bls12381_fp_t *x, __mmask8 mask)
{
    const __m512i idx = _mm512_setr_epi64(0, 6, 12, 18, 24, 30, 36, 42);
    const __m512i zero = _mm512_setzero_si512();
    __m512i V[6];
    TMPL_UNROLL
    for (int w = 0; w < 6; w++)
        V[w] = _mm512_mask_i64gather_epi64(zero, mask, idx, (const void *)&x[0].l[w], 8);
    split_52(X, V);
}

/* x[k] = lane k of D for k < lanes (x: consecutive elements). */
IFMA_TARGET static inline void store_52(bls12381_fp_t *x, const __m512i D[8], unsigned lanes)
{
    uint64_t buf[6][8] __attribute__((aligned(64)));
    join_52(buf, D);
    for (unsigned k = 0; k < lanes; k++)
        TMPL_UNROLL
        for (int w = 0; w < 6; w++)
            x[k].l[w] = buf[w][k];
}

/* X = lane k: the element at byte address addr[k] + off for the lanes in
 * mask, 0 in the others (not read). */
IFMA_TARGET static inline void load_52p(__m512i X[8], __m512i addr, unsigned off, __mmask8 mask)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i V[6];
    TMPL_UNROLL
    for (int w = 0; w < 6; w++) /* base "pointer" 0: addr holds the addresses */
        V[w] = _mm512_mask_i64gather_epi64(zero, mask, addr,
                                           (const void *)(uintptr_t)(off + 8 * w), 1);
    split_52(X, V);
}

/* The element at byte address addr[k] + off = lane k of D, for the lanes
 * in mask. */
IFMA_TARGET static inline void store_52p(const uint64_t addr[8], unsigned off,
                                         const __m512i D[8], __mmask8 mask)
{
    uint64_t buf[6][8] __attribute__((aligned(64)));
    join_52(buf, D);
    for (int k = 0; k < 8; k++) {
        if (!(mask >> k & 1))
            continue;
        uint64_t *x = (uint64_t *)(uintptr_t)(addr[k] + off);
        TMPL_UNROLL
        for (int w = 0; w < 6; w++)
            x[w] = buf[w][k];
    }
}

/* R = A*B*2^-384 mod p, fully reduced, all three in radix 2^52 (lane k of
 * X[j]: digit j of operand k). Product scanning with the reduction folded
 * in (Koc, Acar and Kaliski's FIPS order): column k sums its product terms
 * and the terms of the m already known, then (k < 8) takes its own m; each
 * column keeps four accumulators so its chains stay short, and only the
 * current column's sums, A, B and the eight m are live (no spills). */
IFMA_TARGET static inline void mont_mul_52x8(__m512i R[8], const __m512i A[8],
                                             const __m512i B[8])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    const __m512i m20 = _mm512_set1_epi64((1LL << 20) - 1);
    const __m512i n0 = _mm512_set1_epi64((long long)(bls12381_fp_n0 & M52));
    __m512i P[8], Mv[8], d[9], carry = zero;
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        P[j] = _mm512_set1_epi64((long long)fp381_p52[j]);
    TMPL_UNROLL
    for (int k = 0; k < 16; k++) {
        __m512i pl = zero, ph = zero, rl = zero, rh = zero;
        TMPL_UNROLL
        for (int i = 0; i < 8; i++) {
            int j = k - i;
            if (j >= 0 && j < 8)
                pl = _mm512_madd52lo_epu64(pl, A[i], B[j]);
            if (j >= 1 && j < 9)
                ph = _mm512_madd52hi_epu64(ph, A[i], B[j - 1]);
            if (i < k && j >= 0 && j < 8)
                rl = _mm512_madd52lo_epu64(rl, Mv[i], P[j]);
            if (i < k && j >= 1 && j < 9)
                rh = _mm512_madd52hi_epu64(rh, Mv[i], P[j - 1]);
        }
        __m512i acc = _mm512_add_epi64(_mm512_add_epi64(pl, ph), _mm512_add_epi64(rl, rh));
        acc = _mm512_add_epi64(acc, carry);
        if (k < 8) {
            __m512i m = _mm512_madd52lo_epu64(zero, acc, n0);
            if (k == 7) /* the last round divides by 2^20 only */
                m = _mm512_and_si512(m, m20);
            Mv[k] = m;
            acc = _mm512_madd52lo_epu64(acc, m, P[0]);
        }
        if (k >= 7)
            d[k - 7] = _mm512_and_si512(acc, m52);
        carry = _mm512_srli_epi64(acc, 52);
    }
    /* d: the sum / 2^364 in digits, its low 20 bits zero (d[8] is zero:
     * the sum is below 2^20 * 2p); divide by 2^20 */
    __m512i S[8], bw = zero;
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        R[j] = _mm512_or_si512(_mm512_srli_epi64(d[j], 20),
                               _mm512_and_si512(_mm512_slli_epi64(d[j + 1], 32), m52));
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) { /* S = R - p, the borrow in bit 63 */
        __m512i s = _mm512_sub_epi64(_mm512_sub_epi64(R[j], P[j]), bw);
        bw = _mm512_srli_epi64(s, 63);
        S[j] = _mm512_and_si512(s, m52);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(bw, zero); /* R >= p: take S */
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        R[j] = _mm512_mask_blend_epi64(ge, R[j], S[j]);
}

/* R = A - B mod p (digits, both < p): the borrow chain, then p added back
 * where it borrowed out. */
IFMA_TARGET static inline void sub_52x8(__m512i R[8], const __m512i A[8], const __m512i B[8])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    __m512i S[8], bw = zero, c = zero;
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        __m512i s = _mm512_sub_epi64(_mm512_sub_epi64(A[j], B[j]), bw);
        bw = _mm512_srli_epi64(s, 63);
        S[j] = _mm512_and_si512(s, m52);
    }
    __mmask8 neg = _mm512_cmpneq_epi64_mask(bw, zero);
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(S[j], _mm512_set1_epi64((long long)fp381_p52[j])), c);
        c = _mm512_srli_epi64(t, 52);
        R[j] = _mm512_mask_blend_epi64(neg, S[j], _mm512_and_si512(t, m52));
    }
}

/* R = A + B mod p (digits, both < p). */
IFMA_TARGET static inline void add_52x8(__m512i R[8], const __m512i A[8], const __m512i B[8])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i m52 = _mm512_set1_epi64((long long)M52);
    __m512i S[8], D[8], c = zero, bw = zero;
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(A[j], B[j]), c);
        c = _mm512_srli_epi64(t, 52);
        S[j] = _mm512_and_si512(t, m52);
    }
    TMPL_UNROLL
    for (int j = 0; j < 8; j++) { /* D = S - p */
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(S[j], _mm512_set1_epi64((long long)fp381_p52[j])), bw);
        bw = _mm512_srli_epi64(t, 63);
        D[j] = _mm512_and_si512(t, m52);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(bw, zero); /* S >= p (S < 2p < 2^416) */
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        R[j] = _mm512_mask_blend_epi64(ge, S[j], D[j]);
}

/* Mask of the lanes whose value (digits) is zero. */
IFMA_TARGET static inline __mmask8 zero_52x8(const __m512i X[8])
{
    __m512i o = X[0];
    TMPL_UNROLL
    for (int j = 1; j < 8; j++)
        o = _mm512_or_si512(o, X[j]);
    return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

#endif /* FP381_IFMA */
#endif
