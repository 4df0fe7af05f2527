/* self_check.c — see self_check.h. */
#include "self_check.h"

#include <pthread.h>
#include <string.h>

#include "groth16.h"
#include "stages.h"

/* e(alpha1, beta2) of the last few keys, keyed by the points' own bytes. */
#define AB_CACHE 8
static struct {
    int used;
    enum curve_id curve;
    uint8_t alpha1[96], beta2[192];
    uint64_t alphabeta[12 * 6];
} ab_cache[AB_CACHE];
static unsigned ab_next;
static pthread_mutex_t ab_lock = PTHREAD_MUTEX_INITIALIZER;

static void prepare_cached(struct groth16_vk *vk)
{
    pthread_mutex_lock(&ab_lock);
    for (unsigned i = 0; i < AB_CACHE; i++)
        if (ab_cache[i].used && ab_cache[i].curve == vk->curve &&
            memcmp(ab_cache[i].alpha1, vk->alpha1, sizeof(vk->alpha1)) == 0 &&
            memcmp(ab_cache[i].beta2, vk->beta2, sizeof(vk->beta2)) == 0) {
            memcpy(vk->alphabeta, ab_cache[i].alphabeta, sizeof(vk->alphabeta));
            vk->prepared = 1;
            pthread_mutex_unlock(&ab_lock);
            return;
        }
    pthread_mutex_unlock(&ab_lock);
    groth16_vk_prepare(vk);
    pthread_mutex_lock(&ab_lock);
    unsigned i = ab_next++ % AB_CACHE;
    ab_cache[i].used = 1;
    ab_cache[i].curve = vk->curve;
    memcpy(ab_cache[i].alpha1, vk->alpha1, sizeof(vk->alpha1));
    memcpy(ab_cache[i].beta2, vk->beta2, sizeof(vk->beta2));
    memcpy(ab_cache[i].alphabeta, vk->alphabeta, sizeof(vk->alphabeta));
    pthread_mutex_unlock(&ab_lock);
}

int proof_self_check(const struct zkey *zk, const uint8_t *pub,
                     const struct groth16_proof *p, uint64_t *ns, struct sp_err *e)
{
    uint64_t t0 = now_ns();
    struct groth16_vk vk;
    groth16_vk_from_zkey(&vk, zk);
    prepare_cached(&vk);
    int rc = groth16_verify(&vk, pub, zk->n_public, p, 0, e);
    if (ns)
        *ns = now_ns() - t0;
    if (rc == -SP_EVERIFY)
        return sp_fail(e, SP_EVERIFY, "the witness does not satisfy the circuit "
                       "(its proof fails the pairing check against %s)", zk->path);
    return rc;
}
