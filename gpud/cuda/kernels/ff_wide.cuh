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
 *   sqr(a)                a²·R^−1 mod p, fully reduced
 *
 * fp_redc is Montgomery's REDC (Montgomery 1985; the row form of Koç, Acar,
 * Kaliski 1996, on ff.cuh's even/odd rows): N rows each make the low limb
 * vanish, leaving (x_lo + M·p)/R ≤ p; adding x_hi < p gives less than 2p
 * (below 2^(32N): p has a spare top bit), which one conditional
 * subtraction brings below p.
 */
#ifndef SLOTPROVE_CUDA_FF_WIDE_CUH
#define SLOTPROVE_CUDA_FF_WIDE_CUH

#include "ff.cuh"

template <class P> struct fp_wide {
    uint32_t v[2 * P::N];
};

/* The schoolbook product on the even/odd chains of ff.cuh: a_j·b_i sits at
 * limbs i+j, i+j+1, so row i's products of even j and those of odd j each
 * cover consecutive limbs, starting at limb i and i+1. x0 takes the chains
 * that start at even limbs, x1 those at odd ones (both indexed by limb):
 * row i's even-j chain adds onto limbs i..i+N−1 of one of them, all written
 * by row i−1, and carries into limb i+N of the other, whose odd-j chain
 * has just put a new top pair at limbs i+N−1, i+N. Then x0 + x1. */
template <class P> FF_INLINE fp_wide<P> fp_mul_wide(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    uint32_t x0[2 * N], x1[2 * N];
    ff_mul_pairs<N / 2>(x0, a.v, b.v[0]);
    ff_mul_pairs<N / 2>(x1 + 1, a.v + 1, b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) {
        uint32_t *ev = i & 1 ? x1 : x0, *od = i & 1 ? x0 : x1, bi = b.v[i];
        /* odd j: limbs i+1 .. i+N−2 add on, the top pair is new */
        ff_mad_pairs<N / 2 - 1>(od + i + 1, a.v + 1, bi);
        asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                     : "=r"(od[i + N - 1]), "=r"(od[i + N]) : "r"(a.v[N - 1]), "r"(bi));
        ff_mad_pairs<N / 2>(ev + i, a.v, bi);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(od[i + N]));
    }
    /* x1 holds limbs 1 .. 2N−2 */
    fp_wide<P> x;
    x.v[0] = x0[0];
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(x.v[1]) : "r"(x0[1]), "r"(x1[1]));
#pragma unroll
    for (int k = 2; k < 2 * N - 1; k++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(x.v[k]) : "r"(x0[k]), "r"(x1[k]));
    asm volatile("addc.u32 %0, %1, 0;" : "=r"(x.v[2 * N - 1]) : "r"(x0[2 * N - 1]));
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
    const ff_mod<P> md;
    uint32_t e[N], o[N];
    /* (x_lo + M·p)/R: the rows of ff.cuh's product without a·b_i */
#pragma unroll
    for (int k = 0; k < N; k++)
        e[k] = x.v[k];
    uint32_t m = e[0] * md.n0;
    ff_mul_pairs<N / 2>(o, md.p + 1, m);
    ff_mad_pairs<N / 2>(e, md.p, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(o[N - 1]));
#pragma unroll
    for (int i = 1; i < N; i++)
        ff_shift_redc_row<P>(e, o, md);
    uint32_t t[N];
    ff_fold<P>(t, e, o);
    /* + x_hi */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(x.v[N]));
#pragma unroll
    for (int j = 1; j < N - 1; j++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[j]) : "r"(x.v[N + j]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(t[N - 1]) : "r"(x.v[2 * N - 1]));
    return fp_reduce_once<P>(t, 0);
}

/* a²·R^−1 mod p. On the even/odd chains the plain product is the cheapest
 * square we have: REDC(a·a) compiles to 240 instructions against 216 for
 * a·a (BN254, sm_90). A square that takes each cross product once is not
 * written for these chains: by count, for 8 limbs it saves about as many
 * wide multiply-adds (28 + 8 against 64) as doubling and merging its two
 * accumulators add back, and only for 12 limbs might it pay. */
template <class P> FF_INLINE fp<P> sqr(const fp<P> &a)
{
    return a * a;
}

#endif
