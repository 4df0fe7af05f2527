/*
 * pairing_tmpl.h - optimal ate pairing "template" for a BN or BLS12 curve
 * with a sextic twist (include once, from the curve's *_pairing.c).
 *
 * Before including, define:
 *   PAIRING          curve prefix, e.g. bn254: uses PAIRING_fp/_fp2/_fp6/
 *                    _fp12/_fr, PAIRING_g1/_g2 (from the curve's headers)
 *   PAIRING_TWIST_D  1 for a D-type twist y^2 = x^3 + b/xi (BN254),
 *                    0 for an M-type twist y^2 = x^3 + b xi (BLS12-381)
 *   PAIRING_LOOP_LO, PAIRING_LOOP_HI  the Miller loop count |6u+2| or |x|
 *                    (two u64 halves of a value below 2^128)
 *   PAIRING_LOOP_NEG 1 if the loop count is negative (BLS12-381: x < 0)
 *   PAIRING_BN       1 to add the two BN lines through pi(Q) and -pi^2(Q)
 *   PAIRING_PARAM_ABS, PAIRING_PARAM_NEG  the curve parameter z (u or x):
 *                    |z| < 2^64 and its sign
 *   PAIRING_HARD_DEG, PAIRING_HARD_COEF  the hard part m (p^4 - p^2 + 1)/r
 *                    = sum_i lambda_i p^i (i < 4), lambda_i = sum_j
 *                    COEF[i][j] z^j (j <= DEG), small signed coefficients
 *   PAIRING_G1_COFACTOR_ONE  1 if E(Fp) has prime order r (BN254)
 *   PAIRING_FAST_SUBGROUP  1 to test subgroup membership with the BLS12
 *                    endomorphisms (needs PAIRING_G1_BETA, PAIRING_PSI_CX,
 *                    PAIRING_PSI_CY; Scott, ePrint 2021/1130): P in G1 iff
 *                    (beta x, y) = -z^2 P, Q in G2 iff psi(Q) = z Q;
 *                    otherwise r P = O and r Q = O
 *
 * Defines the functions declared in the curve's *_pairing.h:
 *   PAIRING_miller_loop, PAIRING_final_exp, PAIRING_pairing,
 *   PAIRING_pairing_is_one, PAIRING_g1_in_subgroup, PAIRING_g2_in_subgroup.
 *
 * Sources. The optimal ate pairing: Vercauteren, "Optimal pairings" (IEEE
 * Trans. IT 2010); for BN curves f_{6u+2,Q}(P) l_{T,pi(Q)}(P)
 * l_{T+pi(Q),-pi^2(Q)}(P), for BLS12 f_{x,Q}(P) (conjugated when x < 0).
 * Doubling and mixed addition in homogeneous projective coordinates on the
 * twist with the tangent/chord line: Costello, Lange, Naehrig, "Faster
 * pairing computations on curves with high-degree twists" (PKC 2010) and
 * Aranha, Karabina, Longa, Gebotys, Lopez, "Faster explicit formulas for
 * computing pairings over ordinary curves" (EUROCRYPT 2011), section 4;
 * here the doubled point is scaled by 4 to avoid halvings. Lines are
 * scaled by Fp2 (or Fp4 = <1, w^3>) factors, which the final
 * exponentiation removes. Final exponentiation: (p^6 - 1)(p^2 + 1) by
 * conjugation, inversion and Frobenius, then the hard part
 * (p^4 - p^2 + 1)/r as one exponent with cyclotomic squarings.
 *
 * Untwisting: D-type (x, y) -> (x w^2, y w^3), the line at P = (xP, yP) is
 * l = yP l0 + xP l1 w + l2 w^3; M-type (x, y) -> (x w^-2, y w^-3), times
 * w^3: l = l2 + xP l1 w^2 + yP l0 w^3.
 */
#include <stddef.h>
#include <stdint.h>

#include "limb.h"

#define PR_(name) TMPL_CAT(PAIRING, _##name)
#define PR_FP TMPL_CAT(PAIRING, _fp_t)
#define PR_FP2 TMPL_CAT(PAIRING, _fp2_t)
#define PR_FP12 TMPL_CAT(PAIRING, _fp12_t)
#define PR_G1 TMPL_CAT(PAIRING, _g1_affine_t)
#define PR_G2 TMPL_CAT(PAIRING, _g2_affine_t)
#define PR_G1J TMPL_CAT(PAIRING, _g1_jac_t)
#define PR_G2J TMPL_CAT(PAIRING, _g2_jac_t)
#define PF_(name) TMPL_CAT(PAIRING, _fp_##name)
#define PF2_(name) TMPL_CAT(PAIRING, _fp2_##name)
#define PF12_(name) TMPL_CAT(PAIRING, _fp12_##name)

/* A twist point in homogeneous projective coordinates: x = X/Z, y = Y/Z. */
typedef struct {
    PR_FP2 X, Y, Z;
} PR_(proj_t_);

/* A line's three Fp2 coefficients before evaluation at P (see top). */
typedef struct {
    PR_FP2 l0, l1, l2;
} PR_(line_t_);

/* f *= line evaluated at P = (xP, yP) (sparse multiplication). */
static void PR_(mul_line_)(PR_FP12 *f, const PR_(line_t_) *ln,
                           const PR_G1 *P)
{
    PR_FP2 a, b;
    PF2_(mul_by_base)(&a, &ln->l0, &P->y);
    PF2_(mul_by_base)(&b, &ln->l1, &P->x);
#if PAIRING_TWIST_D
    PF12_(mul_by_013)(f, &a, &b, &ln->l2);   /* a + b w + l2 w^3 */
#else
    PF12_(mul_by_023)(f, &ln->l2, &b, &a);   /* l2 + b w^2 + a w^3 */
#endif
}

/* T = 2T; line = tangent at T: l0 = -2YZ, l1 = 3X^2, l2 = 3b'Z^2 - Y^2.
 * With B = Y^2, D = 3b'Z^2, E = YZ: X' = 2XY(B - 3D),
 * Y' = (B + 3D)^2 - 12 D^2, Z' = 8 B E (4 times the usual formulas). */
static void PR_(dbl_step_)(PR_(line_t_) *ln, PR_(proj_t_) *T)
{
    PR_FP2 A, B, C, D, E, t, u;
    PF2_(sqr)(&A, &T->X);
    PF2_(sqr)(&B, &T->Y);
    PF2_(sqr)(&C, &T->Z);
    PF2_(mul)(&D, &C, &PR_(g2_b));
    PF2_(dbl)(&t, &D);
    PF2_(add)(&D, &t, &D);              /* D = 3 b' Z^2 */
    PF2_(mul)(&E, &T->Y, &T->Z);
    PF2_(dbl)(&ln->l0, &E);
    PF2_(neg)(&ln->l0, &ln->l0);        /* -2YZ */
    PF2_(dbl)(&t, &A);
    PF2_(add)(&ln->l1, &t, &A);         /* 3X^2 */
    PF2_(sub)(&ln->l2, &D, &B);         /* 3b'Z^2 - Y^2 */
    PF2_(dbl)(&t, &D);
    PF2_(add)(&t, &t, &D);              /* 3D */
    PF2_(mul)(&u, &T->X, &T->Y);
    PF2_(dbl)(&u, &u);
    PF2_(sub)(&C, &B, &t);
    PF2_(mul)(&T->X, &u, &C);           /* X' = 2XY(B - 3D) */
    PF2_(add)(&C, &B, &t);
    PF2_(sqr)(&C, &C);                  /* (B + 3D)^2 */
    PF2_(sqr)(&u, &D);
    PF2_(dbl)(&u, &u);
    PF2_(dbl)(&u, &u);                  /* 4 D^2 */
    PF2_(dbl)(&t, &u);
    PF2_(add)(&u, &t, &u);              /* 12 D^2 */
    PF2_(sub)(&T->Y, &C, &u);
    PF2_(mul)(&T->Z, &B, &E);
    PF2_(dbl)(&T->Z, &T->Z);
    PF2_(dbl)(&T->Z, &T->Z);
    PF2_(dbl)(&T->Z, &T->Z);            /* Z' = 8 Y^3 Z */
}

/* T = T + Q (Q affine, T != +-Q); line through T and Q with
 * theta = Y - yQ Z, lambda = X - xQ Z: l0 = lambda, l1 = -theta,
 * l2 = theta xQ - lambda yQ. */
static void PR_(add_step_)(PR_(line_t_) *ln, PR_(proj_t_) *T, const PR_G2 *Q)
{
    PR_FP2 th, la, C, D, E, F, G, H, t;
    PF2_(mul)(&t, &Q->y, &T->Z);
    PF2_(sub)(&th, &T->Y, &t);
    PF2_(mul)(&t, &Q->x, &T->Z);
    PF2_(sub)(&la, &T->X, &t);
    ln->l0 = la;
    PF2_(neg)(&ln->l1, &th);
    PF2_(mul)(&t, &th, &Q->x);
    PF2_(mul)(&C, &la, &Q->y);
    PF2_(sub)(&ln->l2, &t, &C);
    PF2_(sqr)(&C, &th);
    PF2_(sqr)(&D, &la);
    PF2_(mul)(&E, &D, &la);
    PF2_(mul)(&F, &T->Z, &C);
    PF2_(mul)(&G, &T->X, &D);
    PF2_(add)(&H, &E, &F);
    PF2_(sub)(&H, &H, &G);
    PF2_(sub)(&H, &H, &G);              /* H = E + F - 2G */
    PF2_(mul)(&T->X, &la, &H);
    PF2_(sub)(&t, &G, &H);
    PF2_(mul)(&t, &t, &th);
    PF2_(mul)(&C, &T->Y, &E);
    PF2_(sub)(&T->Y, &t, &C);           /* theta(G - H) - Y E */
    PF2_(mul)(&T->Z, &T->Z, &E);
}

/* Signed binary (NAF) digits of the loop count, least significant first;
 * returns the number of digits. */
static int PR_(loop_naf_)(int8_t d[130])
{
    unsigned __int128 k = ((unsigned __int128)PAIRING_LOOP_HI << 64) |
                          PAIRING_LOOP_LO;
    int n = 0;
    while (k) {
        int8_t z = 0;
        if (k & 1) {
            z = (k & 3) == 3 ? -1 : 1;
            if (z == 1)
                k -= 1;
            else
                k += 1;
        }
        d[n++] = z;
        k >>= 1;
    }
    return n;
}

#if PAIRING_BN
/* ret = pi(Q) on the D-type twist: (conj(x) gamma_2, conj(y) gamma_3). */
static void PR_(twist_frob_)(PR_G2 *ret, const PR_G2 *Q)
{
    PF2_(conj)(&ret->x, &Q->x);
    PF2_(mul)(&ret->x, &ret->x, &PF12_(frob_gamma)[1]);
    PF2_(conj)(&ret->y, &Q->y);
    PF2_(mul)(&ret->y, &ret->y, &PF12_(frob_gamma)[2]);
}
#endif

void PR_(miller_loop)(PR_FP12 *ret, const PR_G1 P[], const PR_G2 Q[],
                      size_t n)
{
    enum { MAXP = 8 };
    int8_t naf[130];
    int nd = PR_(loop_naf_)(naf);
    PF12_(set_one)(ret);
    for (size_t base = 0; base < n; base += MAXP) {
        size_t m = n - base < MAXP ? n - base : MAXP, k = 0;
        PR_(proj_t_) T[MAXP];
        PR_G2 q[MAXP], nq[MAXP];
        PR_G1 p[MAXP];
        for (size_t j = 0; j < m; j++) {
            if (PR_(g1_affine_is_inf)(&P[base + j]) ||
                PR_(g2_affine_is_inf)(&Q[base + j]))
                continue; /* e(O, Q) = e(P, O) = 1 */
            p[k] = P[base + j];
            q[k] = Q[base + j];
            PR_(g2_affine_neg)(&nq[k], &q[k]);
            T[k].X = q[k].x;
            T[k].Y = q[k].y;
            PF2_(set_one)(&T[k].Z);
            k++;
        }
        PR_FP12 f;
        PR_(line_t_) ln;
        PF12_(set_one)(&f);
        for (int i = nd - 2; i >= 0; i--) {
            if (i != nd - 2)
                PF12_(sqr)(&f, &f);
            for (size_t j = 0; j < k; j++) {
                PR_(dbl_step_)(&ln, &T[j]);
                PR_(mul_line_)(&f, &ln, &p[j]);
                if (naf[i]) {
                    PR_(add_step_)(&ln, &T[j], naf[i] > 0 ? &q[j] : &nq[j]);
                    PR_(mul_line_)(&f, &ln, &p[j]);
                }
            }
        }
#if PAIRING_BN
        for (size_t j = 0; j < k; j++) {
            PR_G2 q1, q2;
            PR_(twist_frob_)(&q1, &q[j]);
            PR_(twist_frob_)(&q2, &q1);
            PR_(g2_affine_neg)(&q2, &q2);
            PR_(add_step_)(&ln, &T[j], &q1);
            PR_(mul_line_)(&f, &ln, &p[j]);
            PR_(add_step_)(&ln, &T[j], &q2);
            PR_(mul_line_)(&f, &ln, &p[j]);
        }
#endif
#if PAIRING_LOOP_NEG
        PF12_(conj)(&f, &f);
#endif
        PF12_(mul)(ret, ret, &f);
    }
}

/* ret = a^z for a in the cyclotomic subgroup: signed binary digits of |z|
 * (conjugation is the inverse there), conjugated when z < 0. */
static void PR_(exp_by_param_)(PR_FP12 *ret, const PR_FP12 *a)
{
    unsigned __int128 k = PAIRING_PARAM_ABS;
    int8_t d[66];
    int n = 0;
    while (k) {
        int8_t z = 0;
        if (k & 1) {
            z = (k & 3) == 3 ? -1 : 1;
            k = z == 1 ? k - 1 : k + 1;
        }
        d[n++] = z;
        k >>= 1;
    }
    PR_FP12 acc = *a, inv;
    PF12_(conj)(&inv, a);
    for (int i = n - 2; i >= 0; i--) {
        PF12_(cyclo_sqr)(&acc, &acc);
        if (d[i] > 0)
            PF12_(mul)(&acc, &acc, a);
        else if (d[i] < 0)
            PF12_(mul)(&acc, &acc, &inv);
    }
#if PAIRING_PARAM_NEG
    PF12_(conj)(&acc, &acc);
#endif
    *ret = acc;
}

void PR_(final_exp)(PR_FP12 *ret, const PR_FP12 *f)
{
    static const int8_t coef[4][PAIRING_HARD_DEG + 1] = PAIRING_HARD_COEF;
    PR_FP12 t, u;
    /* easy part: f^((p^6 - 1)(p^2 + 1)) */
    PF12_(inv)(&t, f);
    PF12_(conj)(&u, f);
    PF12_(mul)(&t, &u, &t);
    PF12_(frob)(&u, &t);
    PF12_(frob)(&u, &u);
    PF12_(mul)(&t, &u, &t);
    /* hard part: F[j] = t^(z^j), G_i = prod_j F[j]^coef[i][j] (bits of the
     * small |coef| from the top, all j at once), result prod_i frob^i(G_i) */
    PR_FP12 F[PAIRING_HARD_DEG + 1], Fi[PAIRING_HARD_DEG + 1], acc, g;
    F[0] = t;
    for (int j = 1; j <= PAIRING_HARD_DEG; j++)
        PR_(exp_by_param_)(&F[j], &F[j - 1]);
    for (int j = 0; j <= PAIRING_HARD_DEG; j++)
        PF12_(conj)(&Fi[j], &F[j]);
    PF12_(set_one)(&acc);
    for (int i = 3; i >= 0; i--) {
        int started = 0;
        PF12_(set_one)(&g);
        for (int b = 4; b >= 0; b--) {
            if (started)
                PF12_(cyclo_sqr)(&g, &g);
            for (int j = 0; j <= PAIRING_HARD_DEG; j++) {
                int c = coef[i][j], m = c < 0 ? -c : c;
                if ((m >> b) & 1) {
                    PF12_(mul)(&g, &g, c < 0 ? &Fi[j] : &F[j]);
                    started = 1;
                }
            }
        }
        /* Horner in p: acc = frob(acc) * G_i */
        PF12_(frob)(&acc, &acc);
        PF12_(mul)(&acc, &acc, &g);
    }
    *ret = acc;
}

void PR_(pairing)(PR_FP12 *ret, const PR_G1 *P, const PR_G2 *Q)
{
    PR_FP12 f;
    PR_(miller_loop)(&f, P, Q, 1);
    PR_(final_exp)(ret, &f);
}

int PR_(pairing_is_one)(const PR_G1 P[], const PR_G2 Q[], size_t n)
{
    PR_FP12 f;
    PR_(miller_loop)(&f, P, Q, n);
    PR_(final_exp)(&f, &f);
    return PF12_(is_one)(&f);
}

int PR_(g1_in_subgroup_slow)(const PR_G1 *P)
{
    if (!PR_(g1_affine_is_on_curve)(P))
        return 0;
    PR_G1J t;
    PR_(g1_mul_scalar_affine)(&t, P, PR_(fr_modulus).l, 4);
    return PR_(g1_is_inf)(&t);
}

int PR_(g2_in_subgroup_slow)(const PR_G2 *Q)
{
    if (!PR_(g2_affine_is_on_curve)(Q))
        return 0;
    PR_G2J t;
    PR_(g2_mul_scalar_affine)(&t, Q, PR_(fr_modulus).l, 4);
    return PR_(g2_is_inf)(&t);
}

int PR_(g1_in_subgroup)(const PR_G1 *P)
{
#if PAIRING_G1_COFACTOR_ONE
    return PR_(g1_affine_is_on_curve)(P); /* #E(Fp) = r: all of it is G1 */
#elif PAIRING_FAST_SUBGROUP
    static const PR_FP beta = PAIRING_G1_BETA;
    if (!PR_(g1_affine_is_on_curve)(P))
        return 0;
    if (PR_(g1_affine_is_inf)(P))
        return 1;
    /* -z^2 P (the sign of z does not matter) against phi(P) */
    unsigned __int128 z2 = (unsigned __int128)PAIRING_PARAM_ABS * PAIRING_PARAM_ABS;
    uint64_t k[2] = { (uint64_t)z2, (uint64_t)(z2 >> 64) };
    PR_G1J t, phi;
    PR_G1 a = *P;
    PR_(g1_mul_scalar_affine)(&t, P, k, 2);
    PR_(g1_neg)(&t, &t);
    PF_(mul)(&a.x, &a.x, &beta);
    PR_(g1_from_affine)(&phi, &a);
    return PR_(g1_eq)(&t, &phi);
#else
    return PR_(g1_in_subgroup_slow)(P);
#endif
}

int PR_(g2_in_subgroup)(const PR_G2 *Q)
{
#if PAIRING_FAST_SUBGROUP
    static const PR_FP2 cx = PAIRING_PSI_CX, cy = PAIRING_PSI_CY;
    if (!PR_(g2_affine_is_on_curve)(Q))
        return 0;
    if (PR_(g2_affine_is_inf)(Q))
        return 1;
    uint64_t k[1] = { PAIRING_PARAM_ABS };
    PR_G2J t, psi;
    PR_G2 a;
    PR_(g2_mul_scalar_affine)(&t, Q, k, 1);
#if PAIRING_PARAM_NEG
    PR_(g2_neg)(&t, &t);
#endif
    PF2_(conj)(&a.x, &Q->x);
    PF2_(mul)(&a.x, &a.x, &cx);
    PF2_(conj)(&a.y, &Q->y);
    PF2_(mul)(&a.y, &a.y, &cy);
    PR_(g2_from_affine)(&psi, &a);
    return PR_(g2_eq)(&t, &psi);
#else
    return PR_(g2_in_subgroup_slow)(Q);
#endif
}

#undef PR_
#undef PR_FP
#undef PR_FP2
#undef PR_FP12
#undef PR_G1
#undef PR_G2
#undef PR_G1J
#undef PR_G2J
#undef PF_
#undef PF2_
#undef PF12_
