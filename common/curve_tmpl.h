/*
 * curve_tmpl.h - short Weierstrass group y^2 = x^3 + b (a = 0) "template"
 * (no include guard on purpose: include it once per group).
 *
 * Before including, define:
 *   GROUP    name prefix, e.g. bn254_g1
 *   GF       prefix of the coordinate field (a field_tmpl.h or fp2_tmpl.h
 *            instance, e.g. bn254_fp or bn254_fp2); GF_t, GF_mul, ... are used
 *   GROUP_B  the coefficient b, initializer of GF_t in Montgomery form
 * All three are #undef'd at the end of this file.
 *
 * Generated (with GROUP = G):
 *   typedef struct { GF_t x, y; }    G_affine_t;  infinity is x = y = 0
 *                                                 (the snarkjs .zkey encoding)
 *   typedef struct { GF_t X, Y, Z; } G_jac_t;     Jacobian: x = X/Z^2,
 *                                                 y = Y/Z^3; infinity: Z = 0
 *   static const GF_t G_b;
 *   static inline functions G_xxx(ret, ...) documented below.
 *
 * Coordinates are in Montgomery form. Result first; ret may alias any input
 * (except where stated for arrays); no allocation. The special-case tests
 * branch on point data: this code is not constant time.
 */
#include <stddef.h>
#include <stdint.h>

#include "limb.h"

#if !defined(GROUP) || !defined(GF) || !defined(GROUP_B)
#error "curve_tmpl.h: define GROUP, GF and GROUP_B"
#endif

#define CT_AFF TMPL_CAT(GROUP, _affine_t)
#define CT_JAC TMPL_CAT(GROUP, _jac_t)
#define CT_(name) TMPL_CAT(GROUP, _##name)
#define CT_F TMPL_CAT(GF, _t)
#define CTF_(name) TMPL_CAT(GF, _##name)

typedef struct {
    CT_F x, y;
} CT_AFF;

typedef struct {
    CT_F X, Y, Z;
} CT_JAC;

/* The curve coefficient b (Montgomery form). */
static const CT_F CT_(b) = GROUP_B;

/* ret = point at infinity (1 : 1 : 0). */
static inline void CT_(set_inf)(CT_JAC *ret)
{
    CTF_(set_one)(&ret->X);
    CTF_(set_one)(&ret->Y);
    CTF_(set_zero)(&ret->Z);
}

/* 1 if p is the point at infinity (Z == 0), else 0. */
static inline int CT_(is_inf)(const CT_JAC *p)
{
    return CTF_(is_zero)(&p->Z);
}

/* ret = affine infinity (0, 0). */
static inline void CT_(affine_set_inf)(CT_AFF *ret)
{
    CTF_(set_zero)(&ret->x);
    CTF_(set_zero)(&ret->y);
}

/* 1 if a is the affine infinity encoding x = y = 0, else 0. */
static inline int CT_(affine_is_inf)(const CT_AFF *a)
{
    return CTF_(is_zero)(&a->x) & CTF_(is_zero)(&a->y);
}

/* ret = a in Jacobian coordinates (Z = 1, or Z = 0 for infinity). */
static inline void CT_(from_affine)(CT_JAC *ret, const CT_AFF *a)
{
    if (CT_(affine_is_inf)(a)) {
        CT_(set_inf)(ret);
        return;
    }
    ret->X = a->x;
    ret->Y = a->y;
    CTF_(set_one)(&ret->Z);
}

/* ret = affine form of p (one field inversion); infinity gives (0, 0). */
static inline void CT_(to_affine)(CT_AFF *ret, const CT_JAC *p)
{
    if (CT_(is_inf)(p)) {
        CT_(affine_set_inf)(ret);
        return;
    }
    CT_F zi, zi2, zi3;
    CTF_(inv)(&zi, &p->Z);
    CTF_(sqr)(&zi2, &zi);
    CTF_(mul)(&zi3, &zi2, &zi);
    CTF_(mul)(&ret->x, &p->X, &zi2);
    CTF_(mul)(&ret->y, &p->Y, &zi3);
}

/* aff[i] = affine form of jac[i] for i < n, with one field inversion in
 * total (Montgomery's trick). Infinities (Z = 0) give (0, 0) and do not
 * disturb the other entries. scratch must hold n GF_t elements; aff must
 * not overlap jac or scratch. */
static inline void CT_(batch_to_affine)(CT_AFF aff[], const CT_JAC jac[],
                                        size_t n, CT_F *scratch)
{
    CT_F acc, inv, zi, zi2, zi3;
    CTF_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;   /* product of the non-zero Z_j, j < i */
        if (!CT_(is_inf)(&jac[i]))
            CTF_(mul)(&acc, &acc, &jac[i].Z);
    }
    CTF_(inv)(&inv, &acc);  /* inverse of the product of all non-zero Z */
    for (size_t i = n; i-- > 0;) {
        if (CT_(is_inf)(&jac[i])) {
            CT_(affine_set_inf)(&aff[i]);
            continue;
        }
        CTF_(mul)(&zi, &inv, &scratch[i]);      /* 1 / Z_i */
        CTF_(mul)(&inv, &inv, &jac[i].Z);       /* drop Z_i from inv */
        CTF_(sqr)(&zi2, &zi);
        CTF_(mul)(&zi3, &zi2, &zi);
        CTF_(mul)(&aff[i].x, &jac[i].X, &zi2);
        CTF_(mul)(&aff[i].y, &jac[i].Y, &zi3);
    }
}

/* ret = 2p (dbl-2009-l, 2M + 5S); infinity and 2-torsion give infinity. */
static inline void CT_(dbl)(CT_JAC *ret, const CT_JAC *p)
{
    CT_F A, B, C, D, E, F, X3, Y3, Z3;
    CTF_(sqr)(&A, &p->X);
    CTF_(sqr)(&B, &p->Y);
    CTF_(sqr)(&C, &B);
    CTF_(add)(&D, &p->X, &B);
    CTF_(sqr)(&D, &D);
    CTF_(sub)(&D, &D, &A);
    CTF_(sub)(&D, &D, &C);
    CTF_(dbl)(&D, &D);              /* D = 2((X+B)^2 - A - C) */
    CTF_(dbl)(&E, &A);
    CTF_(add)(&E, &E, &A);          /* E = 3A */
    CTF_(sqr)(&F, &E);
    CTF_(mul)(&Z3, &p->Y, &p->Z);
    CTF_(dbl)(&Z3, &Z3);            /* Z3 = 2YZ */
    CTF_(dbl)(&X3, &D);
    CTF_(sub)(&X3, &F, &X3);        /* X3 = F - 2D */
    CTF_(sub)(&Y3, &D, &X3);
    CTF_(mul)(&Y3, &Y3, &E);
    CTF_(dbl)(&C, &C);
    CTF_(dbl)(&C, &C);
    CTF_(dbl)(&C, &C);
    CTF_(sub)(&Y3, &Y3, &C);        /* Y3 = E(D - X3) - 8C */
    ret->X = X3;
    ret->Y = Y3;
    ret->Z = Z3;
}

/* ret = p + q, full Jacobian addition (add-2007-bl, 11M + 5S). Handles
 * either input at infinity, p == q (doubles) and p == -q (infinity). */
static inline void CT_(add)(CT_JAC *ret, const CT_JAC *p, const CT_JAC *q)
{
    if (CT_(is_inf)(p)) {
        *ret = *q;
        return;
    }
    if (CT_(is_inf)(q)) {
        *ret = *p;
        return;
    }
    CT_F Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, r, V, X3, Y3, Z3;
    CTF_(sqr)(&Z1Z1, &p->Z);
    CTF_(sqr)(&Z2Z2, &q->Z);
    CTF_(mul)(&U1, &p->X, &Z2Z2);
    CTF_(mul)(&U2, &q->X, &Z1Z1);
    CTF_(mul)(&S1, &p->Y, &q->Z);
    CTF_(mul)(&S1, &S1, &Z2Z2);
    CTF_(mul)(&S2, &q->Y, &p->Z);
    CTF_(mul)(&S2, &S2, &Z1Z1);
    CTF_(sub)(&H, &U2, &U1);
    CTF_(sub)(&r, &S2, &S1);
    if (CTF_(is_zero)(&H)) {
        if (CTF_(is_zero)(&r))
            CT_(dbl)(ret, p);
        else
            CT_(set_inf)(ret);
        return;
    }
    CTF_(dbl)(&r, &r);              /* r = 2(S2 - S1) */
    CTF_(dbl)(&I, &H);
    CTF_(sqr)(&I, &I);              /* I = (2H)^2 */
    CTF_(mul)(&J, &H, &I);
    CTF_(mul)(&V, &U1, &I);
    CTF_(sqr)(&X3, &r);
    CTF_(sub)(&X3, &X3, &J);
    CTF_(sub)(&X3, &X3, &V);
    CTF_(sub)(&X3, &X3, &V);        /* X3 = r^2 - J - 2V */
    CTF_(sub)(&Y3, &V, &X3);
    CTF_(mul)(&Y3, &Y3, &r);
    CTF_(mul)(&S1, &S1, &J);
    CTF_(dbl)(&S1, &S1);
    CTF_(sub)(&Y3, &Y3, &S1);       /* Y3 = r(V - X3) - 2 S1 J */
    CTF_(add)(&Z3, &p->Z, &q->Z);
    CTF_(sqr)(&Z3, &Z3);
    CTF_(sub)(&Z3, &Z3, &Z1Z1);
    CTF_(sub)(&Z3, &Z3, &Z2Z2);
    CTF_(mul)(&Z3, &Z3, &H);        /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
    ret->X = X3;
    ret->Y = Y3;
    ret->Z = Z3;
}

/* ret = p + q with q affine (mixed addition, madd-2007-bl, 7M + 4S).
 * Handles q at infinity (x = y = 0), p at infinity, p == q and p == -q. */
static inline void CT_(add_affine)(CT_JAC *ret, const CT_JAC *p,
                                   const CT_AFF *q)
{
    if (CT_(affine_is_inf)(q)) {
        *ret = *p;
        return;
    }
    if (CT_(is_inf)(p)) {
        CT_(from_affine)(ret, q);
        return;
    }
    CT_F Z1Z1, U2, S2, H, HH, I, J, r, V, X3, Y3, Z3;
    CTF_(sqr)(&Z1Z1, &p->Z);
    CTF_(mul)(&U2, &q->x, &Z1Z1);
    CTF_(mul)(&S2, &q->y, &p->Z);
    CTF_(mul)(&S2, &S2, &Z1Z1);
    CTF_(sub)(&H, &U2, &p->X);
    CTF_(sub)(&r, &S2, &p->Y);
    if (CTF_(is_zero)(&H)) {
        if (CTF_(is_zero)(&r))
            CT_(dbl)(ret, p);
        else
            CT_(set_inf)(ret);
        return;
    }
    CTF_(dbl)(&r, &r);              /* r = 2(S2 - Y1) */
    CTF_(sqr)(&HH, &H);
    CTF_(dbl)(&I, &HH);
    CTF_(dbl)(&I, &I);              /* I = 4 HH */
    CTF_(mul)(&J, &H, &I);
    CTF_(mul)(&V, &p->X, &I);
    CTF_(sqr)(&X3, &r);
    CTF_(sub)(&X3, &X3, &J);
    CTF_(sub)(&X3, &X3, &V);
    CTF_(sub)(&X3, &X3, &V);        /* X3 = r^2 - J - 2V */
    CTF_(sub)(&Y3, &V, &X3);
    CTF_(mul)(&Y3, &Y3, &r);
    CTF_(mul)(&J, &J, &p->Y);
    CTF_(dbl)(&J, &J);
    CTF_(sub)(&Y3, &Y3, &J);        /* Y3 = r(V - X3) - 2 Y1 J */
    CTF_(add)(&Z3, &p->Z, &H);
    CTF_(sqr)(&Z3, &Z3);
    CTF_(sub)(&Z3, &Z3, &Z1Z1);
    CTF_(sub)(&Z3, &Z3, &HH);       /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    ret->X = X3;
    ret->Y = Y3;
    ret->Z = Z3;
}

/* ret = -p. */
static inline void CT_(neg)(CT_JAC *ret, const CT_JAC *p)
{
    ret->X = p->X;
    CTF_(neg)(&ret->Y, &p->Y);
    ret->Z = p->Z;
}

/* ret = -a (infinity stays (0, 0)). */
static inline void CT_(affine_neg)(CT_AFF *ret, const CT_AFF *a)
{
    ret->x = a->x;
    CTF_(neg)(&ret->y, &a->y);
}

/* ret = p - q. */
static inline void CT_(sub)(CT_JAC *ret, const CT_JAC *p, const CT_JAC *q)
{
    CT_JAC nq;
    CT_(neg)(&nq, q);
    CT_(add)(ret, p, &nq);
}

/* 1 if p and q are the same point (X1 Z2^2 == X2 Z1^2 and
 * Y1 Z2^3 == Y2 Z1^3, or both at infinity), else 0. */
static inline int CT_(eq)(const CT_JAC *p, const CT_JAC *q)
{
    int i1 = CT_(is_inf)(p), i2 = CT_(is_inf)(q);
    if (i1 | i2)
        return i1 & i2;
    CT_F Z1Z1, Z2Z2, a, b;
    CTF_(sqr)(&Z1Z1, &p->Z);
    CTF_(sqr)(&Z2Z2, &q->Z);
    CTF_(mul)(&a, &p->X, &Z2Z2);
    CTF_(mul)(&b, &q->X, &Z1Z1);
    if (!CTF_(eq)(&a, &b))
        return 0;
    CTF_(mul)(&Z2Z2, &Z2Z2, &q->Z);
    CTF_(mul)(&Z1Z1, &Z1Z1, &p->Z);
    CTF_(mul)(&a, &p->Y, &Z2Z2);
    CTF_(mul)(&b, &q->Y, &Z1Z1);
    return CTF_(eq)(&a, &b);
}

/* The denominator of the affine sum B + P for Montgomery's-trick batches:
 * x_P − x_B, or 2y when P = B (a doubling), or 0 when P = −B (the sum is
 * infinity; a doubling of a point with y = 0 counts as that). B and P are
 * not infinity. */
static inline void CT_(affine_add_den)(CT_F *den, const CT_AFF *B, const CT_AFF *P)
{
    if (CTF_(eq)(&B->x, &P->x)) {
        if (CTF_(eq)(&B->y, &P->y) && !CTF_(is_zero)(&P->y))
            CTF_(dbl)(den, &P->y);
        else
            CTF_(set_zero)(den);
    } else {
        CTF_(sub)(den, &P->x, &B->x);
    }
}

/* *B = 2·B, affine, given inv2y = 1/(2·y_B): λ = 3x²/2y, x3 = λ² − 2x,
 * y3 = λ(x − x3) − y (the doubling case of a batch-affine addition). */
static inline void CT_(affine_dbl_with_inv)(CT_AFF *B, const CT_F *inv2y)
{
    CT_F l, l3, x3, u;
    CTF_(sqr)(&l, &B->x);
    CTF_(dbl)(&l3, &l);
    CTF_(add)(&l, &l3, &l);
    CTF_(mul)(&l, &l, inv2y);
    CTF_(sqr)(&x3, &l);
    CTF_(sub)(&x3, &x3, &B->x);
    CTF_(sub)(&x3, &x3, &B->x);
    CTF_(sub)(&u, &B->x, &x3);
    CTF_(mul)(&u, &u, &l);
    CTF_(sub)(&B->y, &u, &B->y);
    B->x = x3;
}

/* x[k] = 1/x[k] for k < 8, all nonzero, with one inversion (variable
 * time): 1/x_k = (1/Π x) · Π_{j<k} x_j · Π_{j>k} x_j. The vector
 * batch-affine additions invert their eight lanes' running products so. */
static inline void CT_(coord_inv8_vartime)(CT_F x[8])
{
    CT_F lo[8], hi[8], inv;
    CTF_(set_one)(&lo[0]);
    for (int k = 1; k < 8; k++)
        CTF_(mul)(&lo[k], &lo[k - 1], &x[k - 1]);
    CTF_(set_one)(&hi[7]);
    for (int k = 7; k > 0; k--)
        CTF_(mul)(&hi[k - 1], &hi[k], &x[k]);
    CTF_(mul)(&inv, &lo[7], &x[7]);
    CTF_(inv_vartime)(&inv, &inv);
    for (int k = 0; k < 8; k++) {
        CTF_(mul)(&x[k], &lo[k], &hi[k]);
        CTF_(mul)(&x[k], &x[k], &inv);
    }
}

/* 1 if a and b are the same affine point (coordinate equality). */
static inline int CT_(affine_eq)(const CT_AFF *a, const CT_AFF *b)
{
    return CTF_(eq)(&a->x, &b->x) & CTF_(eq)(&a->y, &b->y);
}

/* 1 if y^2 == x^3 + b or a is the infinity encoding (0, 0), else 0. Does not
 * check subgroup membership. */
static inline int CT_(affine_is_on_curve)(const CT_AFF *a)
{
    if (CT_(affine_is_inf)(a))
        return 1;
    CT_F l, r;
    CTF_(sqr)(&l, &a->y);
    CTF_(sqr)(&r, &a->x);
    CTF_(mul)(&r, &r, &a->x);
    CTF_(add)(&r, &r, &CT_(b));
    return CTF_(eq)(&l, &r);
}

/* 1 if Y^2 == X^3 + b Z^6 or p is at infinity, else 0. */
static inline int CT_(is_on_curve)(const CT_JAC *p)
{
    if (CT_(is_inf)(p))
        return 1;
    CT_F l, r, z2, z6;
    CTF_(sqr)(&l, &p->Y);
    CTF_(sqr)(&r, &p->X);
    CTF_(mul)(&r, &r, &p->X);
    CTF_(sqr)(&z2, &p->Z);
    CTF_(sqr)(&z6, &z2);
    CTF_(mul)(&z6, &z6, &z2);
    CTF_(mul)(&z6, &z6, &CT_(b));
    CTF_(add)(&r, &r, &z6);
    return CTF_(eq)(&l, &r);
}

/* ret = k * p; k is a standard-form integer of k_limbs little-endian u64
 * limbs (any value; not reduced mod the group order). Double-and-add, most
 * significant bit first; branches on the bits of k (not constant time). */
static inline void CT_(mul_scalar)(CT_JAC *ret, const CT_JAC *p,
                                   const uint64_t *k, size_t k_limbs)
{
    CT_JAC base = *p, acc;
    int started = 0;
    CT_(set_inf)(&acc);
    for (size_t i = k_limbs; i-- > 0;) {
        uint64_t w = k[i];
        for (int j = 63; j >= 0; j--) {
            if (started)
                CT_(dbl)(&acc, &acc);
            if ((w >> j) & 1) {
                if (started)
                    CT_(add)(&acc, &acc, &base);
                else
                    acc = base;
                started = 1;
            }
        }
    }
    *ret = acc;
}

/* ret = k * a for an affine point a (mixed additions; otherwise as
 * _mul_scalar). */
static inline void CT_(mul_scalar_affine)(CT_JAC *ret, const CT_AFF *a,
                                          const uint64_t *k, size_t k_limbs)
{
    CT_AFF base = *a;
    CT_JAC acc;
    int started = 0;
    CT_(set_inf)(&acc);
    for (size_t i = k_limbs; i-- > 0;) {
        uint64_t w = k[i];
        for (int j = 63; j >= 0; j--) {
            if (started)
                CT_(dbl)(&acc, &acc);
            if ((w >> j) & 1) {
                if (started)
                    CT_(add_affine)(&acc, &acc, &base);
                else
                    CT_(from_affine)(&acc, &base);
                started = 1;
            }
        }
    }
    *ret = acc;
}

#undef CT_AFF
#undef CT_JAC
#undef CT_
#undef CT_F
#undef CTF_
#undef GROUP
#undef GF
#undef GROUP_B
