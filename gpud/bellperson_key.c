/* bellperson_key.c — see bellperson_key.h. */
#include "bellperson_key.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_shape.h"
#include "state.h"

typedef bls12381_g1_affine_t g1_t;
typedef bls12381_g2_affine_t g2_t;

void bp_key_free(struct bp_key *k)
{
    free(k->ic), free(k->h), free(k->l), free(k->a), free(k->b_g1), free(k->b_g2);
    k->ic = k->h = k->l = k->a = k->b_g1 = NULL;
    k->b_g2 = NULL;
    bp_params_close(&k->params);
}

int bp_key_load(struct bp_key *k, int fd, const char *path, int subgroup, unsigned nthreads,
                struct sp_err *e)
{
    memset(k, 0, sizeof *k);
    int rc = bp_params_open(&k->params, fd, path, 0, e);
    if (rc < 0)
        return rc;
    const struct bp_params *p = &k->params;
    k->ic = malloc(((size_t)p->count[BP_IC] + 1) * sizeof(g1_t));
    k->h = malloc(((size_t)p->count[BP_H] + 1) * sizeof(g1_t));
    k->l = malloc(((size_t)p->count[BP_L] + 1) * sizeof(g1_t));
    k->a = malloc(((size_t)p->count[BP_A] + 1) * sizeof(g1_t));
    k->b_g1 = malloc(((size_t)p->count[BP_B_G1] + 1) * sizeof(g1_t));
    k->b_g2 = malloc(((size_t)p->count[BP_B_G2] + 1) * sizeof(g2_t));
    if (!k->ic || !k->h || !k->l || !k->a || !k->b_g1 || !k->b_g2) {
        bp_key_free(k);
        return sp_fail(e, -ENOMEM, "%s: out of memory for the points", path);
    }
    struct {
        enum bp_section s;
        void *out;
    } parts[] = {
        { BP_VK_ALPHA_G1, &k->alpha1 }, { BP_VK_BETA_G1, &k->beta1 },
        { BP_VK_BETA_G2, &k->beta2 },   { BP_VK_GAMMA_G2, &k->gamma2 },
        { BP_VK_DELTA_G1, &k->delta1 }, { BP_VK_DELTA_G2, &k->delta2 },
        { BP_IC, k->ic },               { BP_H, k->h },
        { BP_L, k->l },                 { BP_A, k->a },
        { BP_B_G1, k->b_g1 },           { BP_B_G2, k->b_g2 },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        rc = bp_params_decode(p, parts[i].s, 0, p->count[parts[i].s], parts[i].out, subgroup,
                              nthreads, e);
        if (rc < 0) {
            bp_key_free(k);
            return rc;
        }
    }
    /* the points are decoded: drop the mapping (counts and path stay), so
     * a 47 GiB file does not hold its page cache as well */
    bp_params_close(&k->params);
    return 0;
}

int bp_key_match_pce(const struct bp_key *k, const struct bp_pce *p, struct sp_err *e)
{
    return bp_params_match_pce(&k->params, p, e);
}

int bellperson_key_load(struct child_key *k, int params_fd, struct sp_err *e)
{
    struct bellperson_key *bk = calloc(1, sizeof *bk);
    if (!bk)
        return sp_fail(e, -ENOMEM, "%s: out of memory", k->params_name);
    int rc = bp_key_load(&bk->key, params_fd, k->params_name, 0, gpud_backend.nthreads, e);
    if (rc < 0) {
        free(bk);
        return rc;
    }
    struct groth16_vk *vk = &bk->vk;
    vk->curve = CURVE_BLS12381;
    vk->n_public = bk->key.params.count[BP_IC] - 1;
    _Static_assert(sizeof bk->key.alpha1 == 96 && sizeof bk->key.beta2 == 192, "vk layout");
    memcpy(vk->alpha1, &bk->key.alpha1, 96);
    memcpy(vk->beta2, &bk->key.beta2, 192);
    memcpy(vk->gamma2, &bk->key.gamma2, 192);
    memcpy(vk->delta2, &bk->key.delta2, 192);
    vk->ic = (const uint8_t *)bk->key.ic;
    groth16_vk_prepare(vk);
    k->prover_key = bk;
    return 0;
}

void bellperson_key_free(struct child_key *k)
{
    struct bellperson_key *bk = k->prover_key;
    if (!bk)
        return;
    bp_key_free(&bk->key);
    free(bk);
    k->prover_key = NULL;
}
