/*
 * ff.cuh — prime-field arithmetic on the GPU: Montgomery form on 32-bit
 * limbs, carry chains written in PTX (add.cc / addc / mad.lo.cc / madc.hi).
 *
 *   template <class P> struct fp   one element, P::N little-endian 32-bit
 *                                  limbs, value in [0, p), Montgomery form
 *                                  with R = 2^(32·N)
 * P (a parameter struct, see fields.cuh) gives N, the modulus limbs p(i) and
 * n0 = −p^−1 mod 2^32. The byte image of an element is the byte image of the
 * CPU code's 64-bit-limb element (common/field_tmpl.h): little-endian limbs
 * either way, the same R, so zkey points and Fr vectors upload as they are.
 *
 * Multiplication is CIOS Montgomery (Koç, Acar, Kaliski, "Analyzing and
 * comparing Montgomery multiplication algorithms", 1996): per limb b_i of b,
 * t += a·b_i, m = t_0·n0, t += m·p, t >>= 32. The row sums are kept as two
 * interleaved accumulators so that each 64-bit partial product is one link
 * of one carry chain (the even/odd form below, as in sppark's mont_t; our
 * own code). With a, b < p the loop keeps t < 2p; one conditional
 * subtraction ends it. The square and the double-width products with their
 * reduction live in ff_wide.cuh. Every function keeps results fully
 * reduced, so is_zero and eq compare limbs.
 *
 * The carry flag lives between consecutive asm statements: they are all
 * volatile so the compiler keeps their order (it may not move one chain's
 * link past another), and no C operation between them touches CC.CF.
 */
#ifndef SLOTPROVE_CUDA_FF_CUH
#define SLOTPROVE_CUDA_FF_CUH

#include <stdint.h>

#define FF_INLINE __device__ __forceinline__

template <class P> struct __align__(16) fp {
    static constexpr int N = P::N;
    uint32_t v[N];

    static FF_INLINE fp zero()
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = 0;
        return r;
    }
    /* R mod p: one in Montgomery form */
    static FF_INLINE fp one()
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = P::one(i);
        return r;
    }
};

template <class P> FF_INLINE bool is_zero(const fp<P> &a)
{
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++)
        x |= a.v[i];
    return x == 0;
}

template <class P> FF_INLINE bool eq(const fp<P> &a, const fp<P> &b)
{
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++)
        x |= a.v[i] ^ b.v[i];
    return x == 0;
}

/* r = t − p if t ≥ p, else t (t < 2p, N limbs plus carry word hi). */
template <class P> FF_INLINE fp<P> fp_reduce_once(const uint32_t *t, uint32_t hi)
{
    fp<P> r;
    uint32_t borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(t[0]), "r"(P::p(0)));
#pragma unroll
    for (int i = 1; i < P::N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(t[i]), "r"(P::p(i)));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(borrow) : "r"(hi));
    /* borrow is 0xffffffff when t < p: keep t */
#pragma unroll
    for (int i = 0; i < P::N; i++)
        r.v[i] = borrow ? t[i] : r.v[i];
    return r;
}

template <class P> FF_INLINE fp<P> operator+(const fp<P> &a, const fp<P> &b)
{
    uint32_t t[P::N], hi;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < P::N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(hi));
    return fp_reduce_once<P>(t, hi);
}

template <class P> FF_INLINE fp<P> operator-(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
    uint32_t borrow, m[P::N];
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < P::N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    /* add p back when a < b (borrow = all ones) */
#pragma unroll
    for (int i = 0; i < P::N; i++)
        m[i] = P::p(i) & borrow;
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(m[0]));
#pragma unroll
    for (int i = 1; i < P::N - 1; i++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(m[i]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(r.v[P::N - 1]) : "r"(m[P::N - 1]));
    return r;
}

template <class P> FF_INLINE fp<P> operator-(const fp<P> &a)
{
    return fp<P>::zero() - a;
}

template <class P> FF_INLINE fp<P> dbl(const fp<P> &a)
{
    return a + a;
}

/* ---- even/odd carry chains ----
 *
 * A 32×32-bit product x_j·y is 64 bits; added at limbs k, k+1 of an
 * accumulator its low and high halves go into ONE carry chain (mad.lo.cc,
 * madc.hi.cc), and the products of every other limb x_j, x_{j+2}, … cover
 * consecutive accumulator limbs, so one chain takes half of a row. ptxas
 * makes each such pair one wide multiply-add with carry: the BN254 Fr
 * product compiles (sm_90, a loop of products) to 216 instructions against
 * 584 with one chain of low halves and another of high halves a row, whose
 * high-half adds each cost a multiply and an add.
 *
 * ff_mul_pairs:  acc[2k], acc[2k+1] = x[2k]·y           for k < C (no carries)
 * ff_mad_pairs:  acc[2k..2k+1] += x[2k]·y for k < C, one new chain whose
 *                carry out is left in CC.CF
 */
template <int C> FF_INLINE void ff_mul_pairs(uint32_t *acc, const uint32_t *x, uint32_t y)
{
#pragma unroll
    for (int k = 0; k < C; k++)
        asm("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
            : "=r"(acc[2 * k]), "=r"(acc[2 * k + 1]) : "r"(x[2 * k]), "r"(y));
}

template <int C> FF_INLINE void ff_mad_pairs(uint32_t *acc, const uint32_t *x, uint32_t y)
{
#pragma unroll
    for (int k = 0; k < C; k++) {
        if (k == 0)
            asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(acc[0]), "+r"(acc[1]) : "r"(x[0]), "r"(y));
        else
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(acc[2 * k]), "+r"(acc[2 * k + 1]) : "r"(x[2 * k]), "r"(y));
    }
}

/* The modulus' limbs and n0 for the multiply-adds. Where ptxas sees a limb
 * of 0, 1 or 2^32 − 1 as an immediate (BLS12-381 Fr: p_0 = 1, p_1 =
 * 2^32 − 1, n0 = 2^32 − 1) it folds those products into adds and
 * negations, which breaks the wide multiply-add pairs: the BLS12-381 Fr
 * product took 272 instructions with immediates, 216 (as BN254's) with
 * the constants read from constant memory. Such fields read them from
 * constant memory (BLS12-381 NTT at 2^24 on an H200: 4.40 → 3.98 ms); the
 * others keep immediates, which were faster for them (BLS12-381 G1 MSM at
 * 2^24: 116.8 ms with immediates, 121.5 from constant memory). */
template <class P> constexpr bool ff_special_limbs()
{
    bool s = P::n0 == 0 || P::n0 == 1 || P::n0 == 0xffffffffu;
    for (int i = 0; i < P::N; i++)
        s = s || P::p(i) == 0 || P::p(i) == 1 || P::p(i) == 0xffffffffu;
    return s;
}
template <class P> constexpr bool ff_special_limbs_v = ff_special_limbs<P>();
template <class P> constexpr uint32_t ff_limb_or0(int i)
{
    return i < P::N ? P::p(i) : 0;
}
template <class P>
__constant__ uint32_t ff_p_const[12] = { ff_limb_or0<P>(0), ff_limb_or0<P>(1), ff_limb_or0<P>(2),
                                         ff_limb_or0<P>(3), ff_limb_or0<P>(4), ff_limb_or0<P>(5),
                                         ff_limb_or0<P>(6), ff_limb_or0<P>(7), ff_limb_or0<P>(8),
                                         ff_limb_or0<P>(9), ff_limb_or0<P>(10), ff_limb_or0<P>(11) };
template <class P> __constant__ uint32_t ff_n0_const = P::n0;

template <class P> struct ff_mod {
    static_assert(P::N <= 12, "ff_p_const holds up to 12 limbs");
    uint32_t p[P::N], n0;
    FF_INLINE ff_mod()
    {
        if constexpr (ff_special_limbs_v<P>) {
#pragma unroll
            for (int i = 0; i < P::N; i++)
                p[i] = ff_p_const<P>[i];
            n0 = ff_n0_const<P>;
        } else {
#pragma unroll
            for (int i = 0; i < P::N; i++)
                p[i] = P::p(i);
            n0 = P::n0;
        }
    }
};

/* The interleaved form of a Montgomery row sum: t = Σ e_k·2^(32k) +
 * Σ o_k·2^(32(k+1)) for k < N, so the lowest limb is e_0 alone.
 *
 * ff_redc_row: m = e_0·n0, t += m·p (p's even limbs into e, odd ones into o;
 *   e's chain ends in o_{N−1}), which makes e_0 zero: t is now divisible by
 *   2^32. Needs t + m·p < 2^(32(N+1)) (o_{N−1} takes no carry out).
 * ff_shift_mad: t ← t/2^32 + x·y in the same form with the roles swapped:
 *   the new e is the old o plus the old e_1 (both at limb 0 now), the new o
 *   the old e_{k+2}; x's odd limbs go into the new o in the chain that
 *   carries e_1's addition, x's even ones into the new e.
 * ff_shift_redc_row: t ← t/2^32 + m·p, m = (new e_0)·n0: the same shift
 *   with m·p in place of x·y (a reduction row without a product); m is
 *   taken in the asm statement that adds e_1, so nothing can come between
 *   that addition's carry and the chain that takes it.
 */
template <class P> FF_INLINE void ff_redc_row(uint32_t *e, uint32_t *o, const ff_mod<P> &md, uint32_t m)
{
    constexpr int N = P::N;
    /* o += m·p_odd: pairs at limbs 1..N, the top pair's carry stays in it */
    ff_mad_pairs<N / 2 - 1>(o, md.p + 1, m);
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;"
                 : "+r"(o[N - 2]), "+r"(o[N - 1]) : "r"(md.p[N - 1]), "r"(m));
    /* e += m·p_even, its carry into limb N (o_{N−1}) */
    ff_mad_pairs<N / 2>(e, md.p, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(o[N - 1]));
}

/* One CIOS row after the first: e, o ← (t/2^32 + x·y) as described above. */
template <class P> FF_INLINE void ff_shift_mad(uint32_t *e, uint32_t *o, const uint32_t *x, uint32_t y)
{
    constexpr int N = P::N;
    uint32_t ne[N], no[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        ne[k] = o[k];
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(ne[0]) : "r"(e[1]));
    /* no_k = e_{k+2} + x_{odd}·y, continuing e_1's carry; the top pair is new */
#pragma unroll
    for (int k = 0; k < N - 2; k += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                     : "=r"(no[k]), "=r"(no[k + 1]) : "r"(x[k + 1]), "r"(y), "r"(e[k + 2]), "r"(e[k + 3]));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                 : "=r"(no[N - 2]), "=r"(no[N - 1]) : "r"(x[N - 1]), "r"(y));
    ff_mad_pairs<N / 2>(ne, x, y);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(no[N - 1]));
#pragma unroll
    for (int k = 0; k < N; k++)
        e[k] = ne[k], o[k] = no[k];
}

template <class P> FF_INLINE void ff_shift_redc_row(uint32_t *e, uint32_t *o, const ff_mod<P> &md)
{
    constexpr int N = P::N;
    uint32_t ne[N], no[N], m;
#pragma unroll
    for (int k = 0; k < N; k++)
        ne[k] = o[k];
    asm volatile("add.cc.u32 %0, %0, %2; mul.lo.u32 %1, %0, %3;"
                 : "+r"(ne[0]), "=r"(m) : "r"(e[1]), "r"(md.n0));
#pragma unroll
    for (int k = 0; k < N - 2; k += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                     : "=r"(no[k]), "=r"(no[k + 1]) : "r"(md.p[k + 1]), "r"(m), "r"(e[k + 2]), "r"(e[k + 3]));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                 : "=r"(no[N - 2]), "=r"(no[N - 1]) : "r"(md.p[N - 1]), "r"(m));
    ff_mad_pairs<N / 2>(ne, md.p, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(no[N - 1]));
#pragma unroll
    for (int k = 0; k < N; k++)
        e[k] = ne[k], o[k] = no[k];
}

/* e_1 + o as N limbs: t/2^32 of a t whose e_0 is zero, for t/2^32 < 2^(32N). */
template <class P> FF_INLINE void ff_fold(uint32_t *t, const uint32_t *e, const uint32_t *o)
{
    constexpr int N = P::N;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(o[0]), "r"(e[1]));
#pragma unroll
    for (int k = 1; k < N - 1; k++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[k]) : "r"(o[k]), "r"(e[k + 1]));
    asm volatile("addc.u32 %0, %1, 0;" : "=r"(t[N - 1]) : "r"(o[N - 1]));
}

/* Montgomery product a·b·R^−1 mod p: CIOS (see the file comment) on the
 * even/odd chains above, rows t ← (t + a·b_i + m·p)/2^32. With a, b < p and
 * t < 2p before a row, t + a·b_i + m·p < 2^33·p < 2^(32(N+1)) for all four
 * moduli (p < 2^(32N−1)), so no row carries past limb N, and t < 2p after
 * it: one conditional subtraction ends the product. */
template <class P> FF_INLINE fp<P> operator*(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    static_assert(P::p(N - 1) < 0x80000000u, "modulus needs a spare top bit");
    static_assert(N % 2 == 0 && N >= 4, "even/odd chains need an even limb count");
    const ff_mod<P> md;
    uint32_t e[N], o[N];
    ff_mul_pairs<N / 2>(e, a.v, b.v[0]);
    ff_mul_pairs<N / 2>(o, a.v + 1, b.v[0]);
    ff_redc_row<P>(e, o, md, e[0] * md.n0);
#pragma unroll
    for (int i = 1; i < N; i++) {
        ff_shift_mad<P>(e, o, a.v, b.v[i]);
        ff_redc_row<P>(e, o, md, e[0] * md.n0);
    }
    uint32_t t[N];
    ff_fold<P>(t, e, o);
    return fp_reduce_once<P>(t, 0);
}

#endif
