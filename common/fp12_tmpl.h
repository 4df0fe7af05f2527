/*
 * fp12_tmpl.h - quadratic extension Fp12 = Fp6[w]/(w^2 - v) "template" (no
 * include guard on purpose: include it once per extension field).
 *
 * Before including, define:
 *   FP12        name prefix, e.g. bn254_fp12
 *   FP12_BASE   prefix of an instantiated fp6_tmpl.h, e.g. bn254_fp6
 *   FP12_FP2    prefix of the fp2_tmpl.h under it, e.g. bn254_fp2
 *   FP12_GAMMA  initializer of 5 Fp2 values gamma_k = xi^(k(p-1)/6),
 *               k = 1..5 (Montgomery form; common/gen_constants.py)
 * All four are #undef'd at the end of this file.
 *
 * Generated (with FP12 = T):
 *   typedef struct { S_t c0, c1; } T_t;   value c0 + c1 w, w^2 = v, w^6 = xi
 *   static inline functions T_xxx(ret, ...) documented below.
 *
 * Over Fp2 an element is sum_k x_k w^k (k = 0..5) with x_0 = c0.c0,
 * x_1 = c1.c0, x_2 = c0.c1, x_3 = c1.c1, x_4 = c0.c2, x_5 = c1.c2; the
 * Frobenius map sends x_k w^k to conj(x_k) gamma_k w^k. The cyclotomic
 * squaring is Granger and Scott, "Faster Squaring in the Cyclotomic
 * Subgroup of Sixth Degree Extensions" (PKC 2010), section 3.1, over
 * Fp4 = Fp2[s]/(s^2 - xi), s = w^3. Result first; ret may alias any input.
 */
#include <stddef.h>
#include <stdint.h>

#include "limb.h"

#if !defined(FP12) || !defined(FP12_BASE) || !defined(FP12_FP2) ||           \
    !defined(FP12_GAMMA)
#error "fp12_tmpl.h: define FP12, FP12_BASE, FP12_FP2 and FP12_GAMMA"
#endif

#define F12_T TMPL_CAT(FP12, _t)
#define F12_(name) TMPL_CAT(FP12, _##name)
#define F12S_T TMPL_CAT(FP12_BASE, _t)
#define F12S_(name) TMPL_CAT(FP12_BASE, _##name)
#define F12E_T TMPL_CAT(FP12_FP2, _t)
#define F12E_(name) TMPL_CAT(FP12_FP2, _##name)

typedef struct {
    F12S_T c0, c1;
} F12_T;

/* gamma_k = xi^(k(p-1)/6) for k = 1..5 (index k-1). */
static const F12E_T F12_(frob_gamma)[5] = FP12_GAMMA;

/* ret = 1. */
static inline void F12_(set_one)(F12_T *ret)
{
    F12S_(set_one)(&ret->c0);
    F12S_(set_zero)(&ret->c1);
}

/* 1 if a == 1, else 0. */
static inline int F12_(is_one)(const F12_T *a)
{
    F12_T one;
    F12_(set_one)(&one);
    return F12S_(eq)(&a->c0, &one.c0) & F12S_(is_zero)(&a->c1);
}

/* 1 if a == b, else 0. */
static inline int F12_(eq)(const F12_T *a, const F12_T *b)
{
    return F12S_(eq)(&a->c0, &b->c0) & F12S_(eq)(&a->c1, &b->c1);
}

/* ret = a * b (Karatsuba over Fp6: 3 Fp6 multiplications). */
static inline void F12_(mul)(F12_T *ret, const F12_T *a, const F12_T *b)
{
    F12S_T v0, v1, s, t;
    F12S_(mul)(&v0, &a->c0, &b->c0);
    F12S_(mul)(&v1, &a->c1, &b->c1);
    F12S_(add)(&s, &a->c0, &a->c1);
    F12S_(add)(&t, &b->c0, &b->c1);
    F12S_(mul)(&s, &s, &t);
    F12S_(sub)(&s, &s, &v0);
    F12S_(sub)(&ret->c1, &s, &v1);
    F12S_(mul_v)(&v1, &v1);
    F12S_(add)(&ret->c0, &v0, &v1);
}

/* ret = a^2 (complex squaring: 2 Fp6 multiplications). */
static inline void F12_(sqr)(F12_T *ret, const F12_T *a)
{
    F12S_T t, s, u;
    F12S_(mul)(&t, &a->c0, &a->c1);
    F12S_(add)(&s, &a->c0, &a->c1);
    F12S_(mul_v)(&u, &a->c1);
    F12S_(add)(&u, &u, &a->c0);
    F12S_(mul)(&s, &s, &u);             /* (a0 + a1)(a0 + v a1) */
    F12S_(sub)(&s, &s, &t);
    F12S_(mul_v)(&u, &t);
    F12S_(sub)(&ret->c0, &s, &u);
    F12S_(add)(&ret->c1, &t, &t);
}

/* f *= x0 + x1 w + x3 w^3 (x_k in Fp2: a D-type twist's line; 13 Fp2
 * multiplications): with L0 = x0, L1 = x1 + x3 v,
 * f L = f0 L0 + v f1 L1 + ((f0 + f1)(L0 + L1) - f0 L0 - f1 L1) w. */
static inline void F12_(mul_by_013)(F12_T *f, const F12E_T *x0, const F12E_T *x1,
                                    const F12E_T *x3)
{
    F12S_T t0, t1, s;
    F12E_T e;
    F12S_(mul_fp2)(&t0, &f->c0, x0);
    F12S_(mul_by_01)(&t1, &f->c1, x1, x3);
    F12S_(add)(&s, &f->c0, &f->c1);
    F12E_(add)(&e, x0, x1);
    F12S_(mul_by_01)(&s, &s, &e, x3);
    F12S_(sub)(&s, &s, &t0);
    F12S_(sub)(&f->c1, &s, &t1);
    F12S_(mul_v)(&t1, &t1);
    F12S_(add)(&f->c0, &t0, &t1);
}

/* f *= x0 + x2 w^2 + x3 w^3 (an M-type twist's line; 13 Fp2
 * multiplications): L0 = x0 + x2 v, L1 = x3 v. */
static inline void F12_(mul_by_023)(F12_T *f, const F12E_T *x0, const F12E_T *x2,
                                    const F12E_T *x3)
{
    F12S_T t0, t1, s;
    F12E_T e;
    F12S_(mul_by_01)(&t0, &f->c0, x0, x2);
    F12S_(mul_by_1)(&t1, &f->c1, x3);
    F12S_(add)(&s, &f->c0, &f->c1);
    F12E_(add)(&e, x2, x3);
    F12S_(mul_by_01)(&s, &s, x0, &e);
    F12S_(sub)(&s, &s, &t0);
    F12S_(sub)(&f->c1, &s, &t1);
    F12S_(mul_v)(&t1, &t1);
    F12S_(add)(&f->c0, &t0, &t1);
}

/* ret = conjugate c0 - c1 w = a^(p^6); the inverse on the cyclotomic
 * subgroup. */
static inline void F12_(conj)(F12_T *ret, const F12_T *a)
{
    ret->c0 = a->c0;
    F12S_(neg)(&ret->c1, &a->c1);
}

/* ret = a^-1 = (c0 - c1 w) / (c0^2 - v c1^2); the inverse of 0 is 0. */
static inline void F12_(inv)(F12_T *ret, const F12_T *a)
{
    F12S_T t0, t1;
    F12S_(sqr)(&t0, &a->c0);
    F12S_(sqr)(&t1, &a->c1);
    F12S_(mul_v)(&t1, &t1);
    F12S_(sub)(&t0, &t0, &t1);
    F12S_(inv)(&t0, &t0);
    F12S_(mul)(&ret->c0, &a->c0, &t0);
    F12S_(mul)(&t1, &a->c1, &t0);
    F12S_(neg)(&ret->c1, &t1);
}

/* ret = a^p (Frobenius): x_k w^k -> conj(x_k) gamma_k w^k. */
static inline void F12_(frob)(F12_T *ret, const F12_T *a)
{
    F12E_T x[6];
    x[0] = a->c0.c0; x[1] = a->c1.c0; x[2] = a->c0.c1;
    x[3] = a->c1.c1; x[4] = a->c0.c2; x[5] = a->c1.c2;
    for (int k = 0; k < 6; k++) {
        F12E_(conj)(&x[k], &x[k]);
        if (k)
            F12E_(mul)(&x[k], &x[k], &F12_(frob_gamma)[k - 1]);
    }
    ret->c0.c0 = x[0]; ret->c1.c0 = x[1]; ret->c0.c1 = x[2];
    ret->c1.c1 = x[3]; ret->c0.c2 = x[4]; ret->c1.c2 = x[5];
}

/* Internal: (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): re = x^2 + xi y^2,
 * im = 2xy. */
static inline void F12_(fp4_sqr_)(F12E_T *re, F12E_T *im, const F12E_T *x,
                                  const F12E_T *y)
{
    F12E_T t0, t1, t2;
    F12E_(sqr)(&t0, x);
    F12E_(sqr)(&t1, y);
    F12E_(add)(&t2, x, y);
    F12E_(sqr)(&t2, &t2);
    F12E_(sub)(&t2, &t2, &t0);
    F12E_(sub)(im, &t2, &t1);
    F12E_(mul_xi)(&t1, &t1);
    F12E_(add)(re, &t0, &t1);
}

/* Internal: ret = 3 a + 2 b * sign (sign +1 or -1): 3a - 2b or 3a + 2b. */
static inline void F12_(gs_comb_)(F12E_T *ret, const F12E_T *a,
                                  const F12E_T *b, int plus)
{
    F12E_T t;
    F12E_(sub)(&t, a, b);
    if (plus)
        F12E_(add)(&t, a, b);
    F12E_(dbl)(&t, &t);
    F12E_(add)(ret, &t, a);
    /* 2(a -+ b) + a = 3a -+ 2b */
}

/* ret = a^2 for a in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1, e.g.
 * after the easy part of the final exponentiation); wrong elsewhere.
 * With g0 = x0 + x3 s, g1 = x1 + x4 s, g2 = x2 + x5 s:
 * h0 = 3 g0^2 - 2 conj(g0), h1 = 3 s g2^2 + 2 conj(g1),
 * h2 = 3 g1^2 - 2 conj(g2), conj(x + y s) = x - y s. */
static inline void F12_(cyclo_sqr)(F12_T *ret, const F12_T *a)
{
    F12E_T r0, i0, r1, i1, r2, i2, t;
    F12_(fp4_sqr_)(&r0, &i0, &a->c0.c0, &a->c1.c1);  /* g0^2 */
    F12_(fp4_sqr_)(&r1, &i1, &a->c1.c0, &a->c0.c2);  /* g1^2 */
    F12_(fp4_sqr_)(&r2, &i2, &a->c0.c1, &a->c1.c2);  /* g2^2 */
    F12_T o;
    F12_(gs_comb_)(&o.c0.c0, &r0, &a->c0.c0, 0);     /* 3 re0 - 2 x0 */
    F12_(gs_comb_)(&o.c1.c1, &i0, &a->c1.c1, 1);     /* 3 im0 + 2 x3 */
    F12E_(mul_xi)(&t, &i2);
    F12_(gs_comb_)(&o.c1.c0, &t, &a->c1.c0, 1);      /* 3 xi im2 + 2 x1 */
    F12_(gs_comb_)(&o.c0.c2, &r2, &a->c0.c2, 0);     /* 3 re2 - 2 x4 */
    F12_(gs_comb_)(&o.c0.c1, &r1, &a->c0.c1, 0);     /* 3 re1 - 2 x2 */
    F12_(gs_comb_)(&o.c1.c2, &i1, &a->c1.c2, 1);     /* 3 im1 + 2 x5 */
    *ret = o;
}

/* ret = a^e for a in the cyclotomic subgroup; e is an exp_limbs-limb LE
 * integer. Fixed 4-bit windows, cyclotomic squarings; branches on e
 * (public). */
static inline void F12_(cyclo_pow)(F12_T *ret, const F12_T *a,
                                   const uint64_t *e, size_t exp_limbs)
{
    F12_T tbl[16], acc;
    int started = 0;
    F12_(set_one)(&tbl[0]);
    tbl[1] = *a;
    for (int i = 2; i < 16; i++)
        F12_(mul)(&tbl[i], &tbl[i - 1], a);
    F12_(set_one)(&acc);
    for (size_t i = exp_limbs; i-- > 0;) {
        for (int j = 60; j >= 0; j -= 4) {
            unsigned w = (unsigned)(e[i] >> j) & 15;
            if (started)
                for (int k = 0; k < 4; k++)
                    F12_(cyclo_sqr)(&acc, &acc);
            if (w) {
                if (started)
                    F12_(mul)(&acc, &acc, &tbl[w]);
                else
                    acc = tbl[w];
                started = 1;
            }
        }
    }
    *ret = acc;
}

#undef F12_T
#undef F12_
#undef F12S_T
#undef F12S_
#undef F12E_T
#undef F12E_
#undef FP12
#undef FP12_BASE
#undef FP12_FP2
#undef FP12_GAMMA
