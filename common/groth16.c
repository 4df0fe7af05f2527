/* groth16.c — see groth16.h: curve dispatch and the checks that need no
 * curve arithmetic. */
#include "groth16.h"

#include "bls12381_groth16.h"
#include "bn254_groth16.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    int (*g1)(const uint64_t xy[2][6], uint8_t *out);
    int (*g2)(const uint64_t xy[2][2][6], uint8_t *out);
    void (*alphabeta)(struct groth16_vk *vk);
    int (*check)(const struct groth16_vk *, const uint8_t *, const struct groth16_proof *,
                 int, struct sp_err *);
    int (*vk_subgroups)(const struct groth16_vk *, struct sp_err *);
} ops[CURVE_COUNT] = {
    [CURVE_BN254] = { bn254_groth16_g1_from_std, bn254_groth16_g2_from_std,
                      bn254_groth16_alphabeta, bn254_groth16_check,
                      bn254_groth16_vk_subgroups },
    [CURVE_BLS12381] = { bls12381_groth16_g1_from_std, bls12381_groth16_g2_from_std,
                         bls12381_groth16_alphabeta, bls12381_groth16_check,
                         bls12381_groth16_vk_subgroups },
};

void groth16_vk_from_zkey(struct groth16_vk *vk, const struct zkey *zk)
{
    size_t g1 = zk->ci->g1_bytes, g2 = zk->ci->g2_bytes;
    memset(vk, 0, sizeof(*vk));
    vk->curve = zk->curve;
    vk->n_public = zk->n_public;
    memcpy(vk->alpha1, zk->alpha1, g1);
    memcpy(vk->beta2, zk->beta2, g2);
    memcpy(vk->gamma2, zk->gamma2, g2);
    memcpy(vk->delta2, zk->delta2, g2);
    vk->ic = zk->ic;
}

void groth16_vk_prepare(struct groth16_vk *vk)
{
    ops[vk->curve].alphabeta(vk);
}

int groth16_vk_check_subgroups(const struct groth16_vk *vk, struct sp_err *e)
{
    return ops[vk->curve].vk_subgroups(vk, e);
}

void groth16_vk_free(struct groth16_vk *vk)
{
    free(vk->ic_owned);
    vk->ic_owned = NULL;
    vk->ic = NULL;
}

static int from_std_fail(int rc, const char *what, struct sp_err *e)
{
    return sp_fail(e, SP_ERANGE, "%s %s", what,
                   rc == -1 ? "has a coordinate not below q" : "is not on the curve");
}

int groth16_g1_from_std(enum curve_id c, const uint64_t xy[2][6], uint8_t *out,
                        const char *what, struct sp_err *e)
{
    int rc = ops[c].g1(xy, out);
    return rc < 0 ? from_std_fail(rc, what, e) : 0;
}

int groth16_g2_from_std(enum curve_id c, const uint64_t xy[2][2][6], uint8_t *out,
                        const char *what, struct sp_err *e)
{
    int rc = ops[c].g2(xy, out);
    return rc < 0 ? from_std_fail(rc, what, e) : 0;
}

int groth16_verify(const struct groth16_vk *vk, const uint8_t *pub, uint32_t n_pub,
                   const struct groth16_proof *p, int subgroups, struct sp_err *e)
{
    const struct curve_info *ci = curve_get(vk->curve);
    if (!ci || !vk->ic)
        return sp_fail(e, SP_EINTERNAL, "verifying key not set");
    if (p->curve != vk->curve)
        return sp_fail(e, SP_EMISMATCH, "the proof is on %s but the key on %s",
                       curve_get(p->curve) ? curve_get(p->curve)->name : "?", ci->name);
    if (n_pub != vk->n_public)
        return sp_fail(e, SP_EMISMATCH, "%u public signals, the key expects %u", n_pub,
                       vk->n_public);
    for (uint32_t i = 0; i < n_pub; i++)
        if (!curve_scalar_below_r(ci, pub + 32 * (size_t)i))
            return sp_fail(e, SP_ERANGE, "public signal %u is not below r", i);
    return ops[vk->curve].check(vk, pub, p, subgroups, e);
}
