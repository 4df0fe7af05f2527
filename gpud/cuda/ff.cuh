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
 * t += a·b_i (low halves in one carry chain, high halves in a second chain
 * shifted by a limb), m = t_0·n0, t += m·p (the same two chains), t >>= 32.
 * With a, b < p the loop keeps t < 2p; one conditional subtraction ends it.
 * Every function keeps results fully reduced, so is_zero and eq compare limbs.
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

/* Montgomery product a·b·R^−1 mod p (CIOS, see the file comment). Each
 * row adds a·b_i + m·p < 2^33·p to t < 2p, which fits in N+1 limbs for all
 * four moduli (p < 2^(32N−1)): no carry leaves limb N, so the four chains
 * of a row end there without a further carry word. */
template <class P> FF_INLINE fp<P> operator*(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    static_assert(P::p(N - 1) < 0x80000000u, "modulus needs a spare top bit");
    uint32_t t[N + 1];
#pragma unroll
    for (int i = 0; i < N + 1; i++)
        t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t bi = b.v[i], m;
        /* t += lo(a_j·b_i) at limb j */
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.v[j]), "r"(bi));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        /* m makes the low limb vanish: t_0 is final now */
        m = t[0] * P::n0;
        /* t += lo(m·p_j) at limb j */
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(P::p(0)));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(P::p(j)));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        /* t += hi(a_j·b_i) at limb j+1 */
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.v[j]), "r"(bi));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a.v[N - 1]), "r"(bi));
        /* t += hi(m·p_j) at limb j+1 */
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(P::p(0)));
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(P::p(j)));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(m), "r"(P::p(N - 1)));
        /* divide by 2^32 */
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = t[j + 1];
        t[N] = 0;
    }
    return fp_reduce_once<P>(t, 0);
}

/* a²·R^−1 mod p: the square's N(N−1)/2 distinct cross products once,
 * doubled, plus the N diagonal ones (SOS, Koç et al. 1996), then Montgomery
 * reduction of the 2N-limb square x: REDC(x) = (x_lo + M·p)/R + x_hi, where
 * (x_lo + M·p)/R comes from N rows of the product's m·p half (t < R before
 * each row, so a row's sum fits N+1 limbs). (x_lo + M·p)/R ≤ p and
 * x_hi < p²/R < p/2 (spare top bit): one conditional subtraction ends it.
 * About 22% fewer multiplications than a·a (a·b products appear twice). */
template <class P> FF_INLINE fp<P> sqr(const fp<P> &a)
{
    constexpr int N = P::N;
    static_assert(P::p(N - 1) < 0x80000000u, "modulus needs a spare top bit");
    uint32_t w[2 * N], h[2 * N];
#pragma unroll
    for (int i = 0; i < 2 * N; i++)
        w[i] = h[i] = 0;
    /* cross products a_i·a_j, i < j: low halves into w at i+j, high halves
     * into h at i+j+1; row i's carries land on limbs no earlier row wrote */
#pragma unroll
    for (int i = 0; i < N - 1; i++) {
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(w[2 * i + 1]) : "r"(a.v[i]), "r"(a.v[i + 1]));
#pragma unroll
        for (int j = i + 2; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(w[i + j]) : "r"(a.v[i]), "r"(a.v[j]));
        asm volatile("addc.u32 %0, 0, 0;" : "=r"(w[i + N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(h[2 * i + 2]) : "r"(a.v[i]), "r"(a.v[i + 1]));
#pragma unroll
        for (int j = i + 2; j < N; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(h[i + j + 1]) : "r"(a.v[i]), "r"(a.v[j]));
        if (i + N + 1 < 2 * N)
            asm volatile("addc.u32 %0, 0, 0;" : "=r"(h[i + N + 1]));
    }
    /* x = 2(w + h) + Σ a_i²·2^(64i) */
    uint32_t x[2 * N];
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(x[0]) : "r"(w[0]), "r"(h[0]));
#pragma unroll
    for (int k = 1; k < 2 * N - 1; k++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(x[k]) : "r"(w[k]), "r"(h[k]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(x[2 * N - 1]) : "r"(w[2 * N - 1]), "r"(h[2 * N - 1]));
#pragma unroll
    for (int k = 2 * N - 1; k > 0; k--)
        x[k] = __funnelshift_l(x[k - 1], x[k], 1);
    x[0] <<= 1;
    asm volatile("mad.lo.cc.u32 %0, %1, %1, %0;" : "+r"(x[0]) : "r"(a.v[0]));
    asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(x[1]) : "r"(a.v[0]));
#pragma unroll
    for (int i = 1; i < N - 1; i++) {
        asm volatile("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(x[2 * i]) : "r"(a.v[i]));
        asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(x[2 * i + 1]) : "r"(a.v[i]));
    }
    asm volatile("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(x[2 * N - 2]) : "r"(a.v[N - 1]));
    asm volatile("madc.hi.u32 %0, %1, %1, %0;" : "+r"(x[2 * N - 1]) : "r"(a.v[N - 1]));
    /* t = (x_lo + M·p)/R, row by row as in the product (its m·p half) */
    uint32_t t[N + 1];
#pragma unroll
    for (int i = 0; i < N; i++)
        t[i] = x[i];
    t[N] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t m = t[0] * P::n0;
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(P::p(0)));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(P::p(j)));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(P::p(0)));
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(P::p(j)));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(m), "r"(P::p(N - 1)));
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = t[j + 1];
        t[N] = 0;
    }
    /* + x_hi */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(x[N]));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[j]) : "r"(x[N + j]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
    return fp_reduce_once<P>(t, t[N]);
}

#endif
