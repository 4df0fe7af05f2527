/*
 * ec.cuh — points of y² = x³ + b (a = 0) on the GPU, over a field F of
 * fields.cuh (Fp for G1, Fp2 for G2).
 *
 *   affine<F>  (x, y) as stored in a snarkjs .zkey; x = y = 0 is infinity
 *   xyzz<F>    extended Jacobian (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ with
 *              ZZ³ = ZZZ²; ZZ = 0 is infinity (all-zero bytes are infinity)
 *
 * Formulas from the Explicit-Formulas Database, "XYZZ coordinates for short
 * Weierstrass curves" (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html):
 * madd-2008-s (mixed add, 8M + 2S), add-2008-s (12M + 2S), dbl-2008-s-1
 * (6M + 3S, a = 0) and mdbl-2008-s-1 (affine input). Unlike the EFD
 * versions these handle every special case: infinity on either side, P + P
 * (the formulas divide by zero there: doubled instead) and P + (−P).
 */
#ifndef SLOTPROVE_CUDA_EC_CUH
#define SLOTPROVE_CUDA_EC_CUH

#include "fields.cuh"

template <class F> struct affine {
    F x, y;
};

template <class F> struct xyzz {
    F X, Y, ZZ, ZZZ;
};

template <class F> FF_INLINE xyzz<F> xyzz_inf()
{
    return xyzz<F>{ F::zero(), F::zero(), F::zero(), F::zero() };
}

template <class F> FF_INLINE bool affine_is_inf(const affine<F> &a)
{
    return is_zero(a.x) & is_zero(a.y);
}

template <class F> FF_INLINE xyzz<F> xyzz_from_affine(const affine<F> &a)
{
    if (affine_is_inf(a))
        return xyzz_inf<F>();
    return xyzz<F>{ a.x, a.y, F::one(), F::one() };
}

/* 2·P for an affine P ≠ ∞ (mdbl-2008-s-1). y = 0 does not occur on these
 * prime-order groups, so the result is never infinity. */
template <class F> FF_INLINE xyzz<F> xyzz_dbl_affine(const affine<F> &p)
{
    F u = dbl(p.y), v = sqr(u), w = u * v, s = p.x * v;
    F x2 = sqr(p.x), m = dbl(x2) + x2;
    xyzz<F> r;
    r.X = sqr(m) - dbl(s);
    r.Y = m * (s - r.X) - w * p.y;
    r.ZZ = v;
    r.ZZZ = w;
    return r;
}

/* 2·P (dbl-2008-s-1, a = 0). */
template <class F> FF_INLINE xyzz<F> xyzz_dbl(const xyzz<F> &p)
{
    if (is_zero(p.ZZ))
        return p;
    F u = dbl(p.Y), v = sqr(u), w = u * v, s = p.X * v;
    F x2 = sqr(p.X), m = dbl(x2) + x2;
    xyzz<F> r;
    r.X = sqr(m) - dbl(s);
    r.Y = m * (s - r.X) - w * p.Y;
    r.ZZ = v * p.ZZ;
    r.ZZZ = w * p.ZZZ;
    return r;
}

/* p + q for affine q (madd-2008-s); q = ∞ is allowed. */
template <class F> FF_INLINE xyzz<F> xyzz_add_affine(const xyzz<F> &p, const affine<F> &q)
{
    if (affine_is_inf(q))
        return p;
    if (is_zero(p.ZZ))
        return xyzz<F>{ q.x, q.y, F::one(), F::one() };
    F u2 = q.x * p.ZZ, s2 = q.y * p.ZZZ;
    F pp_ = u2 - p.X, r_ = s2 - p.Y;
    if (is_zero(pp_)) {
        if (is_zero(r_))
            return xyzz_dbl_affine(q);
        return xyzz_inf<F>();
    }
    F pp = sqr(pp_), ppp = pp_ * pp, qq = p.X * pp;
    xyzz<F> r;
    r.X = sqr(r_) - ppp - dbl(qq);
    r.Y = r_ * (qq - r.X) - p.Y * ppp;
    r.ZZ = p.ZZ * pp;
    r.ZZZ = p.ZZZ * ppp;
    return r;
}

/* p + q (add-2008-s). */
template <class F> FF_INLINE xyzz<F> xyzz_add(const xyzz<F> &p, const xyzz<F> &q)
{
    if (is_zero(q.ZZ))
        return p;
    if (is_zero(p.ZZ))
        return q;
    F u1 = p.X * q.ZZ, u2 = q.X * p.ZZ;
    F s1 = p.Y * q.ZZZ, s2 = q.Y * p.ZZZ;
    F pp_ = u2 - u1, r_ = s2 - s1;
    if (is_zero(pp_)) {
        if (is_zero(r_))
            return xyzz_dbl(p);
        return xyzz_inf<F>();
    }
    F pp = sqr(pp_), ppp = pp_ * pp, qq = u1 * pp;
    xyzz<F> r;
    r.X = sqr(r_) - ppp - dbl(qq);
    r.Y = r_ * (qq - r.X) - s1 * ppp;
    r.ZZ = p.ZZ * q.ZZ * pp;
    r.ZZZ = p.ZZZ * q.ZZZ * ppp;
    return r;
}

template <class F> FF_INLINE affine<F> affine_neg(const affine<F> &a)
{
    return affine<F>{ a.x, -a.y };
}

#endif
