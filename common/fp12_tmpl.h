/*
 * fp12_tmpl.h - the pairing target field Fp12 = Fp6[w]/(w^2 - v),
 * Fp6 = Fp2[v]/(v^3 - xi), as ffjavascript/wasmcurves (and so snarkjs's
 * vk_alphabeta_12) lay it out; just enough for exponentiation (no pairing
 * yet). No include guard on purpose: include it once per curve.
 *
 * Before including, define:
 *   FP12      name prefix, e.g. bn254_fp12
 *   FP12_FP2  prefix of the fp2_tmpl.h instance, e.g. bn254_fp2
 *   FP12_XI0, FP12_XI1  the non-residue xi = XI0 + XI1*u (small integers:
 *             9 + u for BN254, 1 + u for BLS12-381)
 * All are #undef'd at the end of this file.
 *
 * Generated (with FP12 = T, FP12_FP2 = E):
 *   typedef struct { E_t c[2][3]; } T_t;  value Σ c[i][j]·v^j·w^i
 *   static void T_mul(ret, a, b), T_pow(ret, a, exp, exp_limbs)
 * Schoolbook products (the exponentiations here are a few hundred
 * multiplications; speed does not matter). Montgomery form throughout.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "limb.h"

#if !defined(FP12) || !defined(FP12_FP2) || !defined(FP12_XI0) || !defined(FP12_XI1)
#error "fp12_tmpl.h: define FP12, FP12_FP2, FP12_XI0 and FP12_XI1"
#endif

#define F12_T TMPL_CAT(FP12, _t)
#define F12_(name) TMPL_CAT(FP12, _##name)
#define F12E_T TMPL_CAT(FP12_FP2, _t)
#define F12E_(name) TMPL_CAT(FP12_FP2, _##name)

typedef struct {
    F12E_T c[2][3];
} F12_T;

/* ret = xi·a. */
static void F12_(mul_xi)(F12E_T *ret, const F12E_T *a)
{
    F12E_T xi, one, u;
    F12E_(set_zero)(&xi);
    F12E_(set_one)(&one);   /* 1 + 0u */
    F12E_(set_zero)(&u);
    u.c1 = one.c0;          /* 0 + 1u */
    for (int i = 0; i < FP12_XI0; i++)
        F12E_(add)(&xi, &xi, &one);
    for (int i = 0; i < FP12_XI1; i++)
        F12E_(add)(&xi, &xi, &u);
    F12E_(mul)(ret, a, &xi);
}

/* Fp6: ret = a·b, v^3 = xi. */
static void F12_(mul6)(F12E_T ret[3], const F12E_T a[3], const F12E_T b[3])
{
    F12E_T t[5], s;
    for (int k = 0; k < 5; k++)
        F12E_(set_zero)(&t[k]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            F12E_(mul)(&s, &a[i], &b[j]);
            F12E_(add)(&t[i + j], &t[i + j], &s);
        }
    F12_(mul_xi)(&s, &t[3]);
    F12E_(add)(&ret[0], &t[0], &s);
    F12_(mul_xi)(&s, &t[4]);
    F12E_(add)(&ret[1], &t[1], &s);
    ret[2] = t[2];
}

/* ret = 1. */
static void F12_(set_one)(F12_T *ret)
{
    memset(ret, 0, sizeof(*ret));
    F12E_(set_one)(&ret->c[0][0]);
}

/* ret = a·b, w^2 = v. */
static void F12_(mul)(F12_T *ret, const F12_T *a, const F12_T *b)
{
    F12E_T a0b0[3], a1b1[3], a0b1[3], a1b0[3];
    F12_(mul6)(a0b0, a->c[0], b->c[0]);
    F12_(mul6)(a1b1, a->c[1], b->c[1]);
    F12_(mul6)(a0b1, a->c[0], b->c[1]);
    F12_(mul6)(a1b0, a->c[1], b->c[0]);
    F12E_T v_a1b1[3]; /* v·(x0 + x1 v + x2 v^2) = xi x2 + x0 v + x1 v^2 */
    F12_(mul_xi)(&v_a1b1[0], &a1b1[2]);
    v_a1b1[1] = a1b1[0];
    v_a1b1[2] = a1b1[1];
    for (int j = 0; j < 3; j++) {
        F12E_(add)(&ret->c[0][j], &a0b0[j], &v_a1b1[j]);
        F12E_(add)(&ret->c[1][j], &a0b1[j], &a1b0[j]);
    }
}

/* ret = a^exp, exp a standard-form integer of exp_limbs LE limbs (square
 * and multiply, most significant bit first; exp = 0 gives 1). */
static void F12_(pow)(F12_T *ret, const F12_T *a, const uint64_t *exp, size_t exp_limbs)
{
    F12_T acc, base = *a;
    F12_(set_one)(&acc);
    for (size_t i = exp_limbs; i-- > 0;)
        for (int j = 63; j >= 0; j--) {
            F12_(mul)(&acc, &acc, &acc);
            if ((exp[i] >> j) & 1)
                F12_(mul)(&acc, &acc, &base);
        }
    *ret = acc;
}

#undef F12_T
#undef F12_
#undef F12E_T
#undef F12E_
#undef FP12
#undef FP12_FP2
#undef FP12_XI0
#undef FP12_XI1
