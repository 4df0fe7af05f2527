/*
 * groth16_tmpl.h - per-curve body of Groth16 verification (see groth16.h;
 * declared in bn254_groth16.h / bls12381_groth16.h);
 * included once by each bn254_groth16.c / bls12381_groth16.c.
 *
 * Before including, define G16 (curve prefix, e.g. bn254) and G16_FPL (u64
 * limbs of Fp: 4 or 6); include the curve's *_pairing.h first. Defines
 *   int  G16_groth16_g1_from_std(const uint64_t xy[2][6], uint8_t *out)
 *   int  G16_groth16_g2_from_std(const uint64_t xy[2][2][6], uint8_t *out)
 *        0, -1 (a coordinate not below q) or -2 (not on the curve)
 *   void G16_groth16_alphabeta(struct groth16_vk *vk)
 *   int  G16_groth16_check(vk, pub, p, subgroups, e)  see groth16_verify
 *   int  G16_groth16_vk_subgroups(vk, e)  see groth16_vk_check_subgroups
 */
#include <string.h>

#include "err.h"
#include "groth16_types.h"
#include "limb.h"
#include "msm.h"
#include "proof.h"

#define GV_(name) TMPL_CAT(G16, _##name)
#define GV_FP TMPL_CAT(G16, _fp_t)
#define GV_FP12 TMPL_CAT(G16, _fp12_t)
#define GV_G1 TMPL_CAT(G16, _g1_affine_t)
#define GV_G2 TMPL_CAT(G16, _g2_affine_t)
#define GV_G1J TMPL_CAT(G16, _g1_jac_t)

_Static_assert(sizeof(GV_FP12) <= sizeof(((struct groth16_vk *)0)->alphabeta),
               "alphabeta holds an Fp12");

/* Standard-form limbs -> Montgomery Fp; -1 if not below q. */
static int GV_(fp_from_std_)(GV_FP *ret, const uint64_t l[6])
{
    for (int i = G16_FPL; i < 6; i++)
        if (l[i])
            return -1;
    if (!TMPL_CAT(G16, _fp_is_canonical)(l))
        return -1;
    GV_FP s;
    memcpy(s.l, l, sizeof s.l);
    TMPL_CAT(G16, _fp_to_mont)(ret, &s);
    return 0;
}

int GV_(groth16_g1_from_std)(const uint64_t xy[2][6], uint8_t *out)
{
    GV_G1 P;
    if (GV_(fp_from_std_)(&P.x, xy[0]) < 0 || GV_(fp_from_std_)(&P.y, xy[1]) < 0)
        return -1;
    if (!GV_(g1_affine_is_on_curve)(&P))
        return -2;
    memcpy(out, &P, sizeof P);
    return 0;
}

int GV_(groth16_g2_from_std)(const uint64_t xy[2][2][6], uint8_t *out)
{
    GV_G2 Q;
    if (GV_(fp_from_std_)(&Q.x.c0, xy[0][0]) < 0 || GV_(fp_from_std_)(&Q.x.c1, xy[0][1]) < 0 ||
        GV_(fp_from_std_)(&Q.y.c0, xy[1][0]) < 0 || GV_(fp_from_std_)(&Q.y.c1, xy[1][1]) < 0)
        return -1;
    if (!GV_(g2_affine_is_on_curve)(&Q))
        return -2;
    memcpy(out, &Q, sizeof Q);
    return 0;
}

void GV_(groth16_alphabeta)(struct groth16_vk *vk)
{
    GV_G1 a;
    GV_G2 b;
    GV_FP12 f;
    memcpy(&a, vk->alpha1, sizeof a);
    memcpy(&b, vk->beta2, sizeof b);
    GV_(pairing)(&f, &a, &b);
    memcpy(vk->alphabeta, &f, sizeof f);
    vk->prepared = 1;
}

int GV_(groth16_check)(const struct groth16_vk *vk, const uint8_t *pub,
                       const struct groth16_proof *p, int subgroups, struct sp_err *e)
{
    static const uint64_t zero[2][6], zero2[2][2][6];
    GV_G1 P[4];
    GV_G2 Q[4];
    uint8_t buf[192];
    int rc;
    /* a proof from outside: an honest one has no point at infinity
     * (probability 1/r); x = y = 0 with z = 1 is how the zkey layout writes
     * infinity, so it counts too */
    if (subgroups && (p->a_inf || memcmp(p->a, zero, sizeof zero) == 0))
        return sp_fail(e, SP_ERANGE, "pi_a is the point at infinity");
    if (subgroups && (p->b_inf || memcmp(p->b, zero2, sizeof zero2) == 0))
        return sp_fail(e, SP_ERANGE, "pi_b is the point at infinity");
    if (subgroups && (p->c_inf || memcmp(p->c, zero, sizeof zero) == 0))
        return sp_fail(e, SP_ERANGE, "pi_c is the point at infinity");
    /* A, negated, with B; vk_x with gamma2; C with delta2; alpha1 with beta2 */
    if ((rc = GV_(groth16_g1_from_std)(p->a_inf ? zero : p->a, buf)) < 0)
        return sp_fail(e, SP_ERANGE, "pi_a %s", rc == -1 ? "has a coordinate not below q"
                                                         : "is not on the curve");
    memcpy(&P[0], buf, sizeof P[0]);
    if ((rc = GV_(groth16_g2_from_std)(p->b_inf ? zero2 : p->b, buf)) < 0)
        return sp_fail(e, SP_ERANGE, "pi_b %s", rc == -1 ? "has a coordinate not below q"
                                                         : "is not on the twist curve");
    memcpy(&Q[0], buf, sizeof Q[0]);
    if ((rc = GV_(groth16_g1_from_std)(p->c_inf ? zero : p->c, buf)) < 0)
        return sp_fail(e, SP_ERANGE, "pi_c %s", rc == -1 ? "has a coordinate not below q"
                                                         : "is not on the curve");
    memcpy(&P[2], buf, sizeof P[2]);
    if (subgroups) {
        if (!GV_(g1_in_subgroup)(&P[0]))
            return sp_fail(e, SP_ERANGE, "pi_a is not in the prime-order subgroup G1");
        if (!GV_(g2_in_subgroup)(&Q[0]))
            return sp_fail(e, SP_ERANGE, "pi_b is not in the prime-order subgroup G2");
        if (!GV_(g1_in_subgroup)(&P[2]))
            return sp_fail(e, SP_ERANGE, "pi_c is not in the prime-order subgroup G1");
    }
    GV_(g1_affine_neg)(&P[0], &P[0]);
    /* vk_x = IC[0] + sum pub[i] IC[i+1] */
    GV_G1J acc, t;
    GV_G1 ic;
    memcpy(&ic, vk->ic, sizeof ic);
    GV_(g1_from_affine)(&acc, &ic);
    if (vk->n_public > 0) { /* the project's MSM: keys with 10^4 public inputs exist */
        int rc = GV_(g1_msm)(&t, vk->ic + sizeof ic, pub, vk->n_public,
                             vk->n_public > 1024 ? 0 : 1);
        if (rc < 0)
            return sp_fail(e, rc, "public inputs: MSM failed");
        GV_(g1_add)(&acc, &acc, &t);
    }
    GV_(g1_to_affine)(&P[1], &acc);
    memcpy(&Q[1], vk->gamma2, sizeof Q[1]);
    memcpy(&Q[2], vk->delta2, sizeof Q[2]);
    GV_FP12 f;
    if (vk->prepared) {
        GV_(miller_loop)(&f, P, Q, 3);
        GV_(final_exp)(&f, &f);
        GV_FP12 ab;
        memcpy(&ab, vk->alphabeta, sizeof ab);
        TMPL_CAT(G16, _fp12_mul)(&f, &f, &ab);
    } else {
        memcpy(&P[3], vk->alpha1, sizeof P[3]);
        memcpy(&Q[3], vk->beta2, sizeof Q[3]);
        GV_(miller_loop)(&f, P, Q, 4);
        GV_(final_exp)(&f, &f);
    }
    if (!TMPL_CAT(G16, _fp12_is_one)(&f))
        return sp_fail(e, SP_EVERIFY, "the pairing check fails");
    return 0;
}

int GV_(groth16_vk_subgroups)(const struct groth16_vk *vk, struct sp_err *e)
{
    static const uint8_t zero[sizeof(GV_G2)];
    static const char *const g2n[3] = { "vk_beta_2", "vk_gamma_2", "vk_delta_2" };
    const uint8_t *g2p[3] = { vk->beta2, vk->gamma2, vk->delta2 };
    GV_G1 P;
    GV_G2 Q;
    memcpy(&P, vk->alpha1, sizeof P);
    if (memcmp(&P, zero, sizeof P) == 0)
        return sp_fail(e, SP_ERANGE, "vk_alpha_1 is the point at infinity");
    if (!GV_(g1_in_subgroup)(&P))
        return sp_fail(e, SP_ERANGE, "vk_alpha_1 is not in the prime-order subgroup G1");
    for (int i = 0; i < 3; i++) {
        memcpy(&Q, g2p[i], sizeof Q);
        if (memcmp(&Q, zero, sizeof Q) == 0)
            return sp_fail(e, SP_ERANGE, "%s is the point at infinity", g2n[i]);
        if (!GV_(g2_in_subgroup)(&Q))
            return sp_fail(e, SP_ERANGE, "%s is not in the prime-order subgroup G2", g2n[i]);
    }
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        memcpy(&P, vk->ic + (size_t)i * sizeof P, sizeof P);
        if (!GV_(g1_in_subgroup)(&P))
            return sp_fail(e, SP_ERANGE, "IC[%u] is not in the prime-order subgroup G1", i);
    }
    return 0;
}

#undef GV_
#undef GV_FP
#undef GV_FP12
#undef GV_G1
#undef GV_G2
#undef GV_G1J
