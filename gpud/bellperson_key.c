/* bellperson_key.c — see bellperson_key.h. */
#include "bellperson_key.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

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
    if (bk->engine && gpud_backend.ops->bp_key_drop)
        gpud_backend.ops->bp_key_drop(&gpud_backend, bk->engine);
    bp_key_free(&bk->key);
    free(bk);
    k->prover_key = NULL;
}
