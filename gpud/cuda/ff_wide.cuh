/*
 * ff_wide.cuh — double-width products and their Montgomery reduction, for
 * sums of products that are reduced once (lazy reduction) instead of once
 * per product: fields.cuh's Fp2 product takes three wide products and two
 * reductions where three Montgomery products took three.
 *
 *   fp_wide<P>            2N little-endian 32-bit limbs, an integer below
 *                         2^(64N) (not a field element)
 *   fp_mul_wide(a, b)     a·b as an integer (a, b < R = 2^(32N))
 *   fp_add_nr(a, b)       a + b without reduction (a, b < R/2: below R)
 *   fp_wide_sub(x, y)     x − y, with the borrow: all ones when x < y
 *   fp_wide_add_pr(x, m)  x + (p·R & m): adds p·R when m is all ones
 *   fp_redc(x)            x·R^−1 mod p, fully reduced, for x < p·R
 *
 * fp_redc is Montgomery's REDC (Montgomery 1985; the row form of Koç, Acar,
 * Kaliski 1996, as in ff.cuh's square): N rows each make the low limb
 * vanish, leaving (x_lo + M·p)/R ≤ p; adding x_hi < p gives less than 2p,
 * which one conditional subtraction brings below p.
 */
#ifndef SLOTPROVE_CUDA_FF_WIDE_CUH
#define SLOTPROVE_CUDA_FF_WIDE_CUH

#include "ff.cuh"

template <class P> struct fp_wide {
    uint32_t v[2 * P::N];
};

/* The schoolbook product: low halves of a_i·b_j into w at limb i+j, high
 * halves into h at limb i+j+1, one carry chain a row; row i's final carry
 * lands on a limb no earlier row has written. Then w + h. */
template <class P> FF_INLINE fp_wide<P> fp_mul_wide(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    uint32_t w[2 * N], h[2 * N];
#pragma unroll
    for (int i = 0; i < 2 * N; i++)
        w[i] = h[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t bi = b.v[i];
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(w[i]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(w[i + j]) : "r"(a.v[j]), "r"(bi));
        asm volatile("addc.u32 %0, 0, 0;" : "=r"(w[i + N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(h[i + 1]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(h[i + 1 + j]) : "r"(a.v[j]), "r"(bi));
        if (i + N + 1 < 2 * N)
            asm volatile("addc.u32 %0, 0, 0;" : "=r"(h[i + N + 1]));
    }
    fp_wide<P> x;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(x.v[0]) : "r"(w[0]), "r"(h[0]));
#pragma unroll
    for (int k = 1; k < 2 * N - 1; k++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(x.v[k]) : "r"(w[k]), "r"(h[k]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(x.v[2 * N - 1]) : "r"(w[2 * N - 1]), "r"(h[2 * N - 1]));
    return x;
}

template <class P> FF_INLINE fp<P> fp_add_nr(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < P::N - 1; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[P::N - 1]) : "r"(a.v[P::N - 1]), "r"(b.v[P::N - 1]));
    return r;
}

template <class P> FF_INLINE fp_wide<P> fp_wide_sub(const fp_wide<P> &x, const fp_wide<P> &y, uint32_t &borrow)
{
    constexpr int M = 2 * P::N;
    fp_wide<P> r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(x.v[0]), "r"(y.v[0]));
#pragma unroll
    for (int i = 1; i < M; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(x.v[i]), "r"(y.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    return r;
}

template <class P> FF_INLINE fp_wide<P> fp_wide_add_pr(const fp_wide<P> &x, uint32_t mask)
{
    constexpr int N = P::N;
    fp_wide<P> r = x;
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[N]) : "r"(P::p(0) & mask));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[N + i]) : "r"(P::p(i) & mask));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(r.v[2 * N - 1]) : "r"(P::p(N - 1) & mask));
    return r;
}

template <class P> FF_INLINE fp<P> fp_redc(const fp_wide<P> &x)
{
    constexpr int N = P::N;
    uint32_t t[N + 1];
#pragma unroll
    for (int i = 0; i < N; i++)
        t[i] = x.v[i];
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
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(x.v[N]));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[j]) : "r"(x.v[N + j]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
    return fp_reduce_once<P>(t, t[N]);
}

#endif
