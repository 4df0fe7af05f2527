/* bellperson_proof.c - see bellperson_proof.h. */
#include "bellperson_proof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bls12381_zcash.h"

void bp_proof_encode(uint8_t out[BP_PROOF_BYTES], const bls12381_g1_affine_t *a,
                     const bls12381_g2_affine_t *b, const bls12381_g1_affine_t *c)
{
    bls12381_g1_to_zcash_compressed(out, a);
    bls12381_g2_to_zcash_compressed(out + 48, b);
    bls12381_g1_to_zcash_compressed(out + 144, c);
}

static void g1_std(uint64_t out[2][6], int *inf, const bls12381_g1_affine_t *p)
{
    bls12381_fp_t t;
    memset(out, 0, 2 * 6 * sizeof(uint64_t));
    *inf = bls12381_g1_affine_is_inf(p);
    bls12381_fp_from_mont(&t, &p->x);
    memcpy(out[0], t.l, sizeof t.l);
    bls12381_fp_from_mont(&t, &p->y);
    memcpy(out[1], t.l, sizeof t.l);
}

void bp_proof_to_groth16(struct groth16_proof *p, const bls12381_g1_affine_t *a,
                         const bls12381_g2_affine_t *b, const bls12381_g1_affine_t *c)
{
    memset(p, 0, sizeof *p);
    p->curve = CURVE_BLS12381;
    g1_std(p->a, &p->a_inf, a);
    g1_std(p->c, &p->c_inf, c);
    bls12381_fp2_t t;
    p->b_inf = bls12381_g2_affine_is_inf(b);
    bls12381_fp2_from_mont(&t, &b->x);
    memcpy(p->b[0][0], t.c0.l, sizeof t.c0.l);
    memcpy(p->b[0][1], t.c1.l, sizeof t.c1.l);
    bls12381_fp2_from_mont(&t, &b->y);
    memcpy(p->b[1][0], t.c0.l, sizeof t.c0.l);
    memcpy(p->b[1][1], t.c1.l, sizeof t.c1.l);
}

int bp_proof_from_groth16(uint8_t out[BP_PROOF_BYTES], const struct groth16_proof *p,
                          const char *name, struct sp_err *e)
{
    bls12381_g1_affine_t a, c;
    bls12381_g2_affine_t b;
    int rc;
    _Static_assert(sizeof a == 96 && sizeof b == 192, "zkey layout");
    if (p->curve != CURVE_BLS12381)
        return sp_fail(e, SP_EMISMATCH, "%s: not a BLS12-381 proof", name);
    if (p->a_inf || p->b_inf || p->c_inf)
        return sp_fail(e, SP_ERANGE, "%s: a proof point at infinity", name);
    if ((rc = groth16_g1_from_std(CURVE_BLS12381, p->a, (uint8_t *)&a, "pi_a", e)) < 0 ||
        (rc = groth16_g2_from_std(CURVE_BLS12381, p->b, (uint8_t *)&b, "pi_b", e)) < 0 ||
        (rc = groth16_g1_from_std(CURVE_BLS12381, p->c, (uint8_t *)&c, "pi_c", e)) < 0) {
        char why[sizeof e->msg];
        memcpy(why, e->msg, sizeof why);
        return sp_fail(e, rc, "%s: %s", name, why);
    }
    bp_proof_encode(out, &a, &b, &c);
    return 0;
}

int bp_proof_decode(struct groth16_proof *p, const uint8_t in[BP_PROOF_BYTES], const char *name,
                    unsigned index, struct sp_err *e)
{
    bls12381_g1_affine_t a, c;
    bls12381_g2_affine_t b;
    enum zcash_status st;
    const char *which = "A";
    if ((st = bls12381_g1_from_zcash_compressed(&a, in, 1)) == ZCASH_OK) {
        which = "B";
        if ((st = bls12381_g2_from_zcash_compressed(&b, in + 48, 1)) == ZCASH_OK) {
            which = "C";
            st = bls12381_g1_from_zcash_compressed(&c, in + 144, 1);
        }
    }
    if (st != ZCASH_OK)
        return sp_fail(e, st == ZCASH_NOT_IN_SUBGROUP || st == ZCASH_NOT_ON_CURVE ? SP_ERANGE
                                                                                  : SP_EFORMAT,
                       "%s: proof %u: %s: %s", name, index, which, zcash_reason(st));
    bp_proof_to_groth16(p, &a, &b, &c);
    return 0;
}

int bp_vk_to_groth16(struct groth16_vk *vk, const struct bp_params *p, unsigned nthreads,
                     struct sp_err *e)
{
    bls12381_g1_affine_t alpha;
    bls12381_g2_affine_t g2[3];
    int rc;
    memset(vk, 0, sizeof *vk);
    vk->curve = CURVE_BLS12381;
    vk->n_public = p->count[BP_IC] - 1;
    vk->ic_owned = malloc((size_t)p->count[BP_IC] * sizeof(bls12381_g1_affine_t));
    if (!vk->ic_owned)
        return sp_fail(e, -ENOMEM, "%s: out of memory for IC", p->path);
    vk->ic = vk->ic_owned;
    if ((rc = bp_params_decode(p, BP_VK_ALPHA_G1, 0, 1, &alpha, 1, 1, e)) < 0 ||
        (rc = bp_params_decode(p, BP_VK_BETA_G2, 0, 1, &g2[0], 1, 1, e)) < 0 ||
        (rc = bp_params_decode(p, BP_VK_GAMMA_G2, 0, 1, &g2[1], 1, 1, e)) < 0 ||
        (rc = bp_params_decode(p, BP_VK_DELTA_G2, 0, 1, &g2[2], 1, 1, e)) < 0 ||
        (rc = bp_params_decode(p, BP_IC, 0, p->count[BP_IC], vk->ic_owned, 1, nthreads, e)) < 0) {
        groth16_vk_free(vk);
        return rc;
    }
    _Static_assert(sizeof alpha == 96 && sizeof g2[0] == 192, "zkey layout");
    memcpy(vk->alpha1, &alpha, 96);
    memcpy(vk->beta2, &g2[0], 192);
    memcpy(vk->gamma2, &g2[1], 192);
    memcpy(vk->delta2, &g2[2], 192);
    groth16_vk_prepare(vk);
    return 0;
}
