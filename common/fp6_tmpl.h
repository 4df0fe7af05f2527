/*
 * fp6_tmpl.h - cubic extension Fp6 = Fp2[v]/(v^3 - xi), xi = k + u, "template"
 * (no include guard on purpose: include it once per extension field).
 *
 * Before including, define:
 *   FP6        name prefix, e.g. bn254_fp6
 *   FP6_BASE   prefix of an instantiated fp2_tmpl.h, e.g. bn254_fp2
 *   FP6_FP     prefix of the prime field under it, e.g. bn254_fp
 *   FP6_XI_C0  the small integer k of the non-residue xi = k + u
 *              (9 for BN254, 1 for BLS12-381)
 * All four are #undef'd at the end of this file.
 *
 * Generated (with FP6 = S, FP6_BASE = E):
 *   typedef struct { E_t c0, c1, c2; } S_t;  value c0 + c1 v + c2 v^2
 *   static inline E_mul_xi(ret, a): ret = a * xi in Fp2
 *   static inline functions S_xxx(ret, ...) documented below.
 *
 * Formulas: Karatsuba-style multiplication and the inversion by the adjugate
 * follow Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and
 * Squaring on Pairing-Friendly Fields" (ePrint 2006/471), sections 4 and 6.
 * Components follow the base field's conventions (Montgomery form). Result
 * first; ret may alias any input; no allocation.
 */
#include <stddef.h>
#include <stdint.h>

#include "limb.h"

#if !defined(FP6) || !defined(FP6_BASE) || !defined(FP6_FP) ||              \
    !defined(FP6_XI_C0)
#error "fp6_tmpl.h: define FP6, FP6_BASE, FP6_FP and FP6_XI_C0"
#endif

#define F6_T TMPL_CAT(FP6, _t)
#define F6_(name) TMPL_CAT(FP6, _##name)
#define F6B_T TMPL_CAT(FP6_BASE, _t)
#define F6B_(name) TMPL_CAT(FP6_BASE, _##name)
#define F6P_(name) TMPL_CAT(FP6_FP, _##name)

typedef struct {
    F6B_T c0, c1, c2;
} F6_T;

/* ret = a * xi in Fp2, xi = k + u: (k a0 - a1) + (a0 + k a1) u. */
static inline void F6B_(mul_xi)(F6B_T *ret, const F6B_T *a)
{
    F6B_T k = *a, t = *a;
    for (int i = 1; i < FP6_XI_C0; i++)   /* k = FP6_XI_C0 * a (k is tiny) */
        F6B_(add)(&k, &k, &t);
    F6P_(sub)(&ret->c0, &k.c0, &t.c1);
    F6P_(add)(&ret->c1, &k.c1, &t.c0);
}

/* ret = 0. */
static inline void F6_(set_zero)(F6_T *ret)
{
    F6B_(set_zero)(&ret->c0);
    F6B_(set_zero)(&ret->c1);
    F6B_(set_zero)(&ret->c2);
}

/* ret = 1. */
static inline void F6_(set_one)(F6_T *ret)
{
    F6B_(set_one)(&ret->c0);
    F6B_(set_zero)(&ret->c1);
    F6B_(set_zero)(&ret->c2);
}

/* 1 if a == 0, else 0. */
static inline int F6_(is_zero)(const F6_T *a)
{
    return F6B_(is_zero)(&a->c0) & F6B_(is_zero)(&a->c1) &
           F6B_(is_zero)(&a->c2);
}

/* 1 if a == b, else 0. */
static inline int F6_(eq)(const F6_T *a, const F6_T *b)
{
    return F6B_(eq)(&a->c0, &b->c0) & F6B_(eq)(&a->c1, &b->c1) &
           F6B_(eq)(&a->c2, &b->c2);
}

/* ret = a + b. */
static inline void F6_(add)(F6_T *ret, const F6_T *a, const F6_T *b)
{
    F6B_(add)(&ret->c0, &a->c0, &b->c0);
    F6B_(add)(&ret->c1, &a->c1, &b->c1);
    F6B_(add)(&ret->c2, &a->c2, &b->c2);
}

/* ret = a - b. */
static inline void F6_(sub)(F6_T *ret, const F6_T *a, const F6_T *b)
{
    F6B_(sub)(&ret->c0, &a->c0, &b->c0);
    F6B_(sub)(&ret->c1, &a->c1, &b->c1);
    F6B_(sub)(&ret->c2, &a->c2, &b->c2);
}

/* ret = -a. */
static inline void F6_(neg)(F6_T *ret, const F6_T *a)
{
    F6B_(neg)(&ret->c0, &a->c0);
    F6B_(neg)(&ret->c1, &a->c1);
    F6B_(neg)(&ret->c2, &a->c2);
}

/* ret = a * v = xi a2 + a0 v + a1 v^2. */
static inline void F6_(mul_v)(F6_T *ret, const F6_T *a)
{
    F6B_T t;
    F6B_(mul_xi)(&t, &a->c2);
    ret->c2 = a->c1;
    ret->c1 = a->c0;
    ret->c0 = t;
}

/* ret = a * b (6 Fp2 multiplications). */
static inline void F6_(mul)(F6_T *ret, const F6_T *a, const F6_T *b)
{
    F6B_T v0, v1, v2, s, t, r0, r1, r2;
    F6B_(mul)(&v0, &a->c0, &b->c0);
    F6B_(mul)(&v1, &a->c1, &b->c1);
    F6B_(mul)(&v2, &a->c2, &b->c2);
    /* r0 = v0 + xi((a1+a2)(b1+b2) - v1 - v2) */
    F6B_(add)(&s, &a->c1, &a->c2);
    F6B_(add)(&t, &b->c1, &b->c2);
    F6B_(mul)(&s, &s, &t);
    F6B_(sub)(&s, &s, &v1);
    F6B_(sub)(&s, &s, &v2);
    F6B_(mul_xi)(&s, &s);
    F6B_(add)(&r0, &s, &v0);
    /* r1 = (a0+a1)(b0+b1) - v0 - v1 + xi v2 */
    F6B_(add)(&s, &a->c0, &a->c1);
    F6B_(add)(&t, &b->c0, &b->c1);
    F6B_(mul)(&s, &s, &t);
    F6B_(sub)(&s, &s, &v0);
    F6B_(sub)(&s, &s, &v1);
    F6B_(mul_xi)(&t, &v2);
    F6B_(add)(&r1, &s, &t);
    /* r2 = (a0+a2)(b0+b2) - v0 - v2 + v1 */
    F6B_(add)(&s, &a->c0, &a->c2);
    F6B_(add)(&t, &b->c0, &b->c2);
    F6B_(mul)(&s, &s, &t);
    F6B_(sub)(&s, &s, &v0);
    F6B_(sub)(&s, &s, &v2);
    F6B_(add)(&r2, &s, &v1);
    ret->c0 = r0;
    ret->c1 = r1;
    ret->c2 = r2;
}

/* ret = a^2 (Chung-Hasan SQR2: 2 Fp2 multiplications, 3 squarings). */
static inline void F6_(sqr)(F6_T *ret, const F6_T *a)
{
    F6B_T s0, s1, s2, s3, s4, t;
    F6B_(sqr)(&s0, &a->c0);
    F6B_(mul)(&s1, &a->c0, &a->c1);
    F6B_(dbl)(&s1, &s1);                    /* 2 a0 a1 */
    F6B_(sub)(&t, &a->c0, &a->c1);
    F6B_(add)(&t, &t, &a->c2);
    F6B_(sqr)(&s2, &t);                     /* (a0 - a1 + a2)^2 */
    F6B_(mul)(&s3, &a->c1, &a->c2);
    F6B_(dbl)(&s3, &s3);                    /* 2 a1 a2 */
    F6B_(sqr)(&s4, &a->c2);
    F6B_(mul_xi)(&t, &s3);
    F6B_(add)(&ret->c0, &s0, &t);           /* s0 + xi s3 */
    F6B_(mul_xi)(&t, &s4);
    F6B_(add)(&t, &t, &s1);                 /* s1 + xi s4 */
    F6B_(add)(&s1, &s1, &s2);
    F6B_(add)(&s1, &s1, &s3);
    F6B_(sub)(&s1, &s1, &s0);
    F6B_(sub)(&ret->c2, &s1, &s4);          /* s1 + s2 + s3 - s0 - s4 */
    ret->c1 = t;
}

/* ret = a * k for k in Fp2. */
static inline void F6_(mul_fp2)(F6_T *ret, const F6_T *a, const F6B_T *k)
{
    F6B_T kk = *k;
    F6B_(mul)(&ret->c0, &a->c0, &kk);
    F6B_(mul)(&ret->c1, &a->c1, &kk);
    F6B_(mul)(&ret->c2, &a->c2, &kk);
}

/* ret = a * (b0 + b1 v) (5 Fp2 multiplications):
 * r0 = a0 b0 + xi a2 b1, r1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 * r2 = a2 b0 + a1 b1. */
static inline void F6_(mul_by_01)(F6_T *ret, const F6_T *a, const F6B_T *b0,
                                  const F6B_T *b1)
{
    F6B_T t0, t1, s, u, r0, r2;
    F6B_(mul)(&t0, &a->c0, b0);
    F6B_(mul)(&t1, &a->c1, b1);
    F6B_(mul)(&r0, &a->c2, b1);
    F6B_(mul_xi)(&r0, &r0);
    F6B_(add)(&r0, &r0, &t0);
    F6B_(mul)(&r2, &a->c2, b0);
    F6B_(add)(&r2, &r2, &t1);
    F6B_(add)(&s, &a->c0, &a->c1);
    F6B_(add)(&u, b0, b1);
    F6B_(mul)(&s, &s, &u);
    F6B_(sub)(&s, &s, &t0);
    F6B_(sub)(&ret->c1, &s, &t1);
    ret->c0 = r0;
    ret->c2 = r2;
}

/* ret = a * (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 (3 Fp2 multiplications). */
static inline void F6_(mul_by_1)(F6_T *ret, const F6_T *a, const F6B_T *b1)
{
    F6B_T t;
    F6B_(mul)(&t, &a->c2, b1);
    F6B_(mul_xi)(&t, &t);
    F6B_(mul)(&ret->c2, &a->c1, b1);
    F6B_(mul)(&ret->c1, &a->c0, b1);
    ret->c0 = t;
}

/* ret = a^-1; the inverse of 0 is 0. With A = a0^2 - xi a1 a2,
 * B = xi a2^2 - a0 a1, C = a1^2 - a0 a2, F = a0 A + xi (a2 B + a1 C):
 * a^-1 = (A + B v + C v^2) / F. */
static inline void F6_(inv)(F6_T *ret, const F6_T *a)
{
    F6B_T A, B, C, F, t;
    F6B_(sqr)(&A, &a->c0);
    F6B_(mul)(&t, &a->c1, &a->c2);
    F6B_(mul_xi)(&t, &t);
    F6B_(sub)(&A, &A, &t);
    F6B_(sqr)(&B, &a->c2);
    F6B_(mul_xi)(&B, &B);
    F6B_(mul)(&t, &a->c0, &a->c1);
    F6B_(sub)(&B, &B, &t);
    F6B_(sqr)(&C, &a->c1);
    F6B_(mul)(&t, &a->c0, &a->c2);
    F6B_(sub)(&C, &C, &t);
    F6B_(mul)(&F, &a->c2, &B);
    F6B_(mul)(&t, &a->c1, &C);
    F6B_(add)(&F, &F, &t);
    F6B_(mul_xi)(&F, &F);
    F6B_(mul)(&t, &a->c0, &A);
    F6B_(add)(&F, &F, &t);
    F6B_(inv)(&F, &F);
    F6B_(mul)(&ret->c0, &A, &F);
    F6B_(mul)(&ret->c1, &B, &F);
    F6B_(mul)(&ret->c2, &C, &F);
}

#undef F6_T
#undef F6_
#undef F6B_T
#undef F6B_
#undef F6P_
#undef FP6_FP
#undef FP6
#undef FP6_BASE
#undef FP6_XI_C0
