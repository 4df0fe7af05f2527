/*
 * assemble_tmpl.h — the Groth16 proof from the five MSM results, for one
 * curve. A "C template": define PC (curve prefix: bn254 or bls12381) and
 * include; it defines PC##_groth16_assemble, declared in assemble.h.
 *
 * The formulas (snarkjs groth16_prove.js; DESIGN.md "The math"), with
 * r, s uniform in Fr:
 *   A = α1 + πA' + r·δ1, B = β2 + πB' + s·δ2, B1 = β1 + πB1' + s·δ1,
 *   C = πC' + πH + s·A + r·B1 − r·s·δ1.
 */
#include <string.h>

#include "random.h"

#define PC_CAT2(a, b) a##_##b
#define PC_CAT(a, b) PC_CAT2(a, b)
#define P_(name) PC_CAT(PC, name)

static void P_(load_g1)(P_(g1_affine_t) *p, const uint8_t *raw)
{
    memcpy(p, raw, sizeof(*p));
}

static void P_(load_g2)(P_(g2_affine_t) *p, const uint8_t *raw)
{
    memcpy(p, raw, sizeof(*p));
}

static void P_(export_fp)(uint64_t out[6], const P_(fp_t) *m)
{
    P_(fp_t) s;
    P_(fp_from_mont)(&s, m);
    memset(out, 0, 6 * sizeof(uint64_t));
    memcpy(out, s.l, sizeof(s.l));
}

static int P_(rand_fr)(P_(fr_t) *std, struct sp_err *e)
{
    int rc = random_below(std->l, P_(fr_modulus).l);
    if (rc < 0)
        return sp_fail(e, rc, "getrandom: %s", strerror(-rc));
    return 0;
}

/* The proof from the five MSMs' results: blinding with fresh r, s and the
 * key's α1, β1, β2, δ1, δ2 (the formulas at the top of this file). */
int P_(groth16_assemble)(const struct zkey *zk, const P_(g1_jac_t) *pi_a_,
                         const P_(g1_jac_t) *pi_b1_, const P_(g2_jac_t) *pi_b_,
                         const P_(g1_jac_t) *pi_c_, const P_(g1_jac_t) *pi_h_,
                         struct groth16_proof *out, struct sp_err *e)
{
    P_(g1_jac_t) pi_a = *pi_a_, pi_b1 = *pi_b1_, pi_c = *pi_c_, pi_h = *pi_h_;
    P_(g2_jac_t) pi_b = *pi_b_;
    int rc;
    /* blinding */
    P_(fr_t) r, s, rs, rm, sm;
    if ((rc = P_(rand_fr)(&r, e)) < 0 || (rc = P_(rand_fr)(&s, e)) < 0)
        return rc;
    P_(fr_to_mont)(&rm, &r);
    P_(fr_to_mont)(&sm, &s);
    P_(fr_mul)(&rs, &rm, &sm);
    P_(fr_from_mont)(&rs, &rs);

    P_(g1_affine_t) alpha1, beta1, delta1;
    P_(g2_affine_t) beta2, delta2;
    P_(load_g1)(&alpha1, zk->alpha1);
    P_(load_g1)(&beta1, zk->beta1);
    P_(load_g1)(&delta1, zk->delta1);
    P_(load_g2)(&beta2, zk->beta2);
    P_(load_g2)(&delta2, zk->delta2);

    P_(g1_jac_t) A, B1, C, tmp;
    P_(g2_jac_t) B, tmp2;
    /* A = α1 + πA' + r·δ1 */
    P_(g1_mul_scalar_affine)(&tmp, &delta1, r.l, 4);
    P_(g1_add_affine)(&A, &pi_a, &alpha1);
    P_(g1_add)(&A, &A, &tmp);
    /* B = β2 + πB' + s·δ2 */
    P_(g2_mul_scalar_affine)(&tmp2, &delta2, s.l, 4);
    P_(g2_add_affine)(&B, &pi_b, &beta2);
    P_(g2_add)(&B, &B, &tmp2);
    /* B1 = β1 + πB1' + s·δ1 */
    P_(g1_mul_scalar_affine)(&tmp, &delta1, s.l, 4);
    P_(g1_add_affine)(&B1, &pi_b1, &beta1);
    P_(g1_add)(&B1, &B1, &tmp);
    /* C = πC' + πH + s·A + r·B1 − r·s·δ1 */
    P_(g1_add)(&C, &pi_c, &pi_h);
    P_(g1_mul_scalar)(&tmp, &A, s.l, 4);
    P_(g1_add)(&C, &C, &tmp);
    P_(g1_mul_scalar)(&tmp, &B1, r.l, 4);
    P_(g1_add)(&C, &C, &tmp);
    P_(g1_mul_scalar_affine)(&tmp, &delta1, rs.l, 4);
    P_(g1_sub)(&C, &C, &tmp);

    P_(g1_affine_t) Aa, Ca;
    P_(g2_affine_t) Ba;
    memset(out, 0, sizeof(*out));
    out->curve = zk->curve;
    out->a_inf = P_(g1_is_inf)(&A);
    out->b_inf = P_(g2_is_inf)(&B);
    out->c_inf = P_(g1_is_inf)(&C);
    P_(g1_to_affine)(&Aa, &A);
    P_(g2_to_affine)(&Ba, &B);
    P_(g1_to_affine)(&Ca, &C);
    P_(export_fp)(out->a[0], &Aa.x);
    P_(export_fp)(out->a[1], &Aa.y);
    P_(export_fp)(out->b[0][0], &Ba.x.c0);
    P_(export_fp)(out->b[0][1], &Ba.x.c1);
    P_(export_fp)(out->b[1][0], &Ba.y.c0);
    P_(export_fp)(out->b[1][1], &Ba.y.c1);
    P_(export_fp)(out->c[0], &Ca.x);
    P_(export_fp)(out->c[1], &Ca.y);
    return 0;
}

#undef P_
#undef PC_CAT
#undef PC_CAT2
#undef PC
