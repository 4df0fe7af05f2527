/*
 * fp2_tmpl.h - quadratic extension Fp2 = Fp[u]/(u^2 + 1) "template" (no
 * include guard on purpose: include it once per extension field).
 *
 * Before including, define:
 *   FP2       name prefix, e.g. bn254_fp2
 *   FP2_BASE  prefix of an already instantiated field_tmpl.h, e.g. bn254_fp
 * Both are #undef'd at the end of this file.
 *
 * Generated (with FP2 = E, FP2_BASE = B):
 *   typedef struct { B_t c0, c1; } E_t;   value c0 + c1*u, u^2 = -1
 *   static inline functions E_xxx(ret, ...) documented below.
 *
 * Components follow the base field's conventions (reduced; Montgomery form
 * unless stated). Result first; ret may alias any input; no allocation.
 */
#include <stddef.h>
#include <stdint.h>

#include "limb.h"

#if !defined(FP2) || !defined(FP2_BASE)
#error "fp2_tmpl.h: define FP2 and FP2_BASE"
#endif

#define F2_T TMPL_CAT(FP2, _t)
#define F2_(name) TMPL_CAT(FP2, _##name)
#define F2B_T TMPL_CAT(FP2_BASE, _t)
#define F2B_(name) TMPL_CAT(FP2_BASE, _##name)

typedef struct {
    F2B_T c0, c1;
} F2_T;

/* ret = 0. */
static inline void F2_(set_zero)(F2_T *ret)
{
    F2B_(set_zero)(&ret->c0);
    F2B_(set_zero)(&ret->c1);
}

/* ret = 1 (Montgomery form: c0 = R mod p, c1 = 0). */
static inline void F2_(set_one)(F2_T *ret)
{
    F2B_(set_one)(&ret->c0);
    F2B_(set_zero)(&ret->c1);
}

/* ret = a. */
static inline void F2_(copy)(F2_T *ret, const F2_T *a)
{
    *ret = *a;
}

/* 1 if a == 0, else 0. */
static inline int F2_(is_zero)(const F2_T *a)
{
    return F2B_(is_zero)(&a->c0) & F2B_(is_zero)(&a->c1);
}

/* 1 if a == b, else 0. */
static inline int F2_(eq)(const F2_T *a, const F2_T *b)
{
    return F2B_(eq)(&a->c0, &b->c0) & F2B_(eq)(&a->c1, &b->c1);
}

/* ret = a + b (any form). */
static inline void F2_(add)(F2_T *ret, const F2_T *a, const F2_T *b)
{
    F2B_(add)(&ret->c0, &a->c0, &b->c0);
    F2B_(add)(&ret->c1, &a->c1, &b->c1);
}

/* ret = a - b (any form). */
static inline void F2_(sub)(F2_T *ret, const F2_T *a, const F2_T *b)
{
    F2B_(sub)(&ret->c0, &a->c0, &b->c0);
    F2B_(sub)(&ret->c1, &a->c1, &b->c1);
}

/* ret = -a (any form). */
static inline void F2_(neg)(F2_T *ret, const F2_T *a)
{
    F2B_(neg)(&ret->c0, &a->c0);
    F2B_(neg)(&ret->c1, &a->c1);
}

/* ret = 2a (any form). */
static inline void F2_(dbl)(F2_T *ret, const F2_T *a)
{
    F2B_(dbl)(&ret->c0, &a->c0);
    F2B_(dbl)(&ret->c1, &a->c1);
}

/* ret = conjugate of a = c0 - c1*u (any form). */
static inline void F2_(conj)(F2_T *ret, const F2_T *a)
{
    ret->c0 = a->c0;
    F2B_(neg)(&ret->c1, &a->c1);
}

/* ret = a * b (Montgomery form). Karatsuba: 3 base multiplications, with
 * lazy reduction where the base field has it (F_mul2_karatsuba). */
static inline void F2_(mul)(F2_T *ret, const F2_T *a, const F2_T *b)
{
    F2B_(mul2_karatsuba)(&ret->c0, &ret->c1, &a->c0, &a->c1, &b->c0, &b->c1);
}

/* ret = a^2 (Montgomery form): c0 = (a0+a1)(a0-a1), c1 = 2 a0 a1. */
static inline void F2_(sqr)(F2_T *ret, const F2_T *a)
{
    F2B_T s, d, m;
    F2B_(add)(&s, &a->c0, &a->c1);
    F2B_(sub)(&d, &a->c0, &a->c1);
    F2B_(mul)(&m, &a->c0, &a->c1);
    F2B_(mul)(&ret->c0, &s, &d);
    F2B_(dbl)(&ret->c1, &m);
}

/* ret = a^-1 (Montgomery form) = conj(a) / (a0^2 + a1^2), with base_inv
 * the base field's inversion; inverse of 0 is 0. */
static inline void F2_(inv_with)(F2_T *ret, const F2_T *a,
                                 void (*base_inv)(F2B_T *, const F2B_T *))
{
    F2B_T t0, t1;
    F2B_(sqr)(&t0, &a->c0);
    F2B_(sqr)(&t1, &a->c1);
    F2B_(add)(&t0, &t0, &t1);
    base_inv(&t0, &t0);
    F2B_(mul)(&t1, &a->c1, &t0);
    F2B_(mul)(&ret->c0, &a->c0, &t0);
    F2B_(neg)(&ret->c1, &t1);
}

/* ret = a^-1, in constant time. */
static inline void F2_(inv)(F2_T *ret, const F2_T *a)
{
    F2_(inv_with)(ret, a, F2B_(inv));
}

/* F2_inv in variable time (the base field's F_inv_vartime; limb_inv.h). */
static inline void F2_(inv_vartime)(F2_T *ret, const F2_T *a)
{
    F2_(inv_with)(ret, a, F2B_(inv_vartime));
}

/* ret = a * k for k in the base field (Montgomery form). */
static inline void F2_(mul_by_base)(F2_T *ret, const F2_T *a, const F2B_T *k)
{
    F2B_T kk = *k;
    F2B_(mul)(&ret->c0, &a->c0, &kk);
    F2B_(mul)(&ret->c1, &a->c1, &kk);
}

/* ret = Montgomery form of a standard-form element (componentwise). */
static inline void F2_(to_mont)(F2_T *ret, const F2_T *a)
{
    F2B_(to_mont)(&ret->c0, &a->c0);
    F2B_(to_mont)(&ret->c1, &a->c1);
}

/* ret = standard form of a Montgomery-form element (componentwise). */
static inline void F2_(from_mont)(F2_T *ret, const F2_T *a)
{
    F2B_(from_mont)(&ret->c0, &a->c0);
    F2B_(from_mont)(&ret->c1, &a->c1);
}

#undef F2_T
#undef F2_
#undef F2B_T
#undef F2B_
#undef FP2
#undef FP2_BASE
