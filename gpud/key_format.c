/* key_format.c — gpud's row per key format (see key_format.h). */
#include "key_format.h"

#include <string.h>

#include "bellperson_key.h"
#include "self_check.h"
#include "stages.h"

static int zkey_check(const struct child_key *k, const uint8_t *pub,
                      const struct groth16_proof *proof, uint64_t *ns, struct sp_err *e)
{
    return proof_self_check(&k->zk, pub, proof, ns, e);
}

static int bellperson_load(struct child_key *k, const int *fds, int nfds, struct sp_err *e)
{
    (void)nfds; /* child_key_load took two */
    return bellperson_key_load(k, fds[0], e);
}

/* against the .params' own vk (bellperson_key.h), the reason naming it */
static int bellperson_check(const struct child_key *k, const uint8_t *pub,
                            const struct groth16_proof *proof, uint64_t *ns, struct sp_err *e)
{
    const struct bellperson_key *bk = k->prover_key;
    uint64_t t0 = now_ns();
    int rc = groth16_verify(&bk->vk, pub, k->shape.n_public, proof, 0, e);
    *ns = now_ns() - t0;
    if (rc < 0) {
        char why[sizeof e->msg];
        memcpy(why, e->msg, sizeof why);
        rc = sp_fail(e, rc, "the proof fails its check against %s's vk (%s): the "
                     "witness does not satisfy the circuit", k->params_name, why);
    }
    return rc;
}

static const struct key_format formats[CTL_KEY_KINDS] = {
    [CTL_KEY_ZKEY] = { NULL, NULL, zkey_check },
    [CTL_KEY_BELLPERSON] = { bellperson_load, bellperson_key_free, bellperson_check },
};

const struct key_format *key_format(const struct child_key *k)
{
    return &formats[k->kind];
}
