/* cuda_keys.c — keys resident on the GPU (see cuda_keys.h). */
#include "cuda_keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "child.h"
#include "fault_point.h"
#include "cuda_budget.h"
#include "cuda_lost.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_prove.h"
#include "stages.h"
#include "log_stamp.h"

/* Page-locks k's key file (gpu_mem_register: its device cost charged to
 * the ledger's "pinned" part); 0, or the error in *e (nothing locked). */
static int key_lock(struct cuda_key *k, struct gpu_mem_pin *pin, struct sp_err *e)
{
    struct gpu_mem_pin got;
    int rc = gpu_mem_register((void *)k->zk->map, k->zk->map_len, "key file", &got, e);
    if (rc == 0) {
        k->host_registered = 1;
        k->pin_charge = got.charged;
        if (pin)
            *pin = got;
    }
    return rc;
}

/* Unlocks it, and its charge goes. */
static void key_unlock(struct cuda_key *k)
{
    if (k->host_registered)
        gpu_mem_unregister((void *)k->zk->map);
    k->host_registered = 0;
    k->pin_charge = 0;
}

void cuda_key_evict(struct cuda_key *k)
{
    gpu_msm_free(k->g1);
    gpu_msm_free(k->g2);
    key_unlock(k);
    memset(k, 0, sizeof(*k));
}

size_t cuda_key_pin_planned(const struct cuda_key *k, const struct zkey *zk)
{
    return k && k->host_registered ? k->pin_charge : gpu_mem_pin_ceiling(zk->map_len);
}

size_t cuda_device_free(struct cuda_priv *p, size_t *total)
{
    size_t fr = 0, tot = 0;
    struct sp_err e;
    (void)p;
    if (gpu_mem_info(&fr, &tot, &e) < 0)
        return 0;
    if (total)
        *total = tot;
    return fr;
}

/* Evicts the least recently used idle key other than keep (on the GPU, or
 * only its key file page-locked); 0 if one went. */
int cuda_evict_lru(struct cuda_priv *p, const struct cuda_key *keep)
{
    struct cuda_key *lru = NULL;
    for (int i = 0; i < CUDA_MAX_KEYS; i++) {
        struct cuda_key *k = &p->keys[i];
        if (k->zk && k != keep && !k->busy && (k->g1 || k->host_registered) &&
            (!lru || k->last_used < lru->last_used))
            lru = k;
    }
    if (!lru)
        return -1;
    diag(LOG_NOTE, "gpud: evicting key %s from the GPU (least recently used%s)", lru->name,
            lru->host_registered ? "; its key file unlocked" : "");
    cuda_key_evict(lru);
    return 0;
}

/* The bytes k's upload takes beyond what the ledger already holds for
 * its purpose: its engines, the NTT tables if new, the sets' growth, and
 * when streamed the key file's lock if not yet locked (its ceiling). */
static size_t upload_need(struct cuda_priv *p, const struct cuda_key *k, const struct cuda_plan *pl)
{
    const struct zkey *zk = k->zk;
    size_t need = pl->points + pl->msm, held = gpu_mem_used(GPU_MEM_VECTORS);
    if (pl->stream && !k->host_registered)
        need += gpu_mem_pin_ceiling(zk->map_len);
    enum gpu_curve curve = zk->curve == CURVE_BN254 ? GPU_BN254 : GPU_BLS12381;
    if (!p->ntt[pl->lean][curve][zk->log_domain])
        need += pl->ntt;
    if (pl->sets * pl->vectors > held)
        need += pl->sets * pl->vectors - held;
    return need;
}

/* The engines of zk: A, B1, C, H in one G1 engine and B2 in a G2 engine,
 * as cuda_plan_key says. Called with p->gpu held. */
int cuda_key_upload(struct cuda_priv *p, struct cuda_key *k, struct sp_err *e)
{
    const struct zkey *zk = k->zk;
    size_t nv = zk->n_vars, nc = nv - zk->n_public - 1, n = zk->domain_size;
    struct cuda_plan pl;
    if (fault_point("gpu-key-large", NULL))
        return sp_fail(e, -E2BIG, "key %s is too large for the GPU (injected)", k->name);
    /* the plan at load counted the lock at its ceiling; here at what it
     * was charged, if the key file is locked */
    int rc = cuda_plan_key(zk, k->name, p->budget, p->pool_pinned, cuda_key_pin_planned(k, zk), &pl, e);
    if (rc < 0)
        return rc == -E2BIG ? rc : cuda_gpu_failed(rc);
    k->bytes = pl.stream ? pl.msm : pl.points + pl.msm;
    k->stream = pl.stream;
    k->chunk = pl.chunk;
    k->sets = pl.sets;
    k->lean = pl.lean;
    if (!pl.stream)
        key_unlock(k); /* resident points need no lock */
    while (gpu_mem_left() < upload_need(p, k, &pl) && cuda_evict_lru(p, k) == 0)
        ;
    if (pl.stream && !k->host_registered) {
        struct sp_err re;
        if (key_lock(k, NULL, &re) < 0)
            diag(LOG_WARN, "gpud: key %s: %s; its streamed points are staged", k->name, re.msg);
    }
    enum gpu_group gg1 = zk->curve == CURVE_BN254 ? GPU_BN254_G1 : GPU_BLS12381_G1;
    enum gpu_group gg2 = zk->curve == CURVE_BN254 ? GPU_BN254_G2 : GPU_BLS12381_G2;
    const void *arrays[4] = { zk->a, zk->b1, zk->c, zk->h };
    size_t counts[4] = { nv, nv, nc, n };
    const void *b2[1] = { zk->b2 };
    for (;;) {
        rc = gpu_msm_create_chunked(&k->g1, gg1, arrays, counts, 4, pl.chunk, pl.stream, e);
        if (rc == 0)
            rc = gpu_msm_create_chunked(&k->g2, gg2, b2, &counts[0], 1, pl.chunk, pl.stream, e);
        if (rc == 0)
            return 0;
        gpu_msm_free(k->g1);
        gpu_msm_free(k->g2);
        k->g1 = k->g2 = NULL;
        if (rc != -ENOMEM || cuda_evict_lru(p, k) < 0)
            break;
    }
    key_unlock(k);
    if (rc == -ENOMEM) { /* other work holds the memory: not for good */
        char why[SP_ERR_MSG];
        snprintf(why, sizeof(why), "%s", e->msg);
        return sp_fail(e, -ENOMEM, "key %s does not fit in the GPU's memory now (%.2f GiB of %s): %.300s",
                       k->name, k->bytes / 1073741824.0, pl.stream ? "MSM buffers" : "points and MSM buffers",
                       why);
    }
    return cuda_gpu_failed(rc);
}

/* Page-locks zk's mapping at key load (cuda_keys.h); the entry keeps
 * host_registered until it is evicted (cuda_key_evict unregisters). */
void cuda_key_pin(struct cuda_priv *p, const struct zkey *zk)
{
    struct cuda_key *k = cuda_key_get(p, zk);
    if (!k)
        return;
    pthread_mutex_lock(&p->gpu); /* cuda_key_upload sets host_registered under it */
    if (!k->host_registered && !k->g1 && !k->too_large) {
        struct sp_err re;
        struct gpu_mem_pin pin;
        uint64_t t0 = now_ns();
        if (key_lock(k, &pin, &re) == 0) {
            diag(LOG_NOTE, "gpud: key %s: %.2f GiB of key file page-locked at load in %.1f ms "
                    "(its streamed points are copied straight from it); device cost measured "
                    "%.1f MiB, charged %.1f MiB (pinned)",
                    k->name, zk->map_len / 1073741824.0, (now_ns() - t0) / 1e6,
                    pin.measured / 1048576.0, pin.charged / 1048576.0);
        } else {
            diag(LOG_WARN, "gpud: key %s: %s; its streamed points are staged", k->name, re.msg);
        }
    }
    pthread_mutex_unlock(&p->gpu);
    cuda_key_put(p, k);
}

/* The key's entry (made if new), marked busy. */
struct cuda_key *cuda_key_get(struct cuda_priv *p, const struct zkey *zk)
{
    struct cuda_key *free_k = NULL, *k = NULL;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUDA_MAX_KEYS; i++) {
        if (p->keys[i].zk == zk && p->keys[i].map == zk->map)
            k = &p->keys[i];
        else if (!p->keys[i].zk && !free_k)
            free_k = &p->keys[i];
    }
    if (!k && !free_k) { /* table full: forget the least recently used idle one */
        for (int i = 0; i < CUDA_MAX_KEYS; i++)
            if (!p->keys[i].busy && (!free_k || p->keys[i].last_used < free_k->last_used))
                free_k = &p->keys[i];
        if (free_k)
            cuda_key_evict(free_k);
    }
    if (!k && free_k) {
        k = free_k;
        k->zk = zk;
        k->map = zk->map;
        const char *base = strrchr(zk->path ? zk->path : "key", '/');
        snprintf(k->name, sizeof(k->name), "%s", base ? base + 1 : zk->path ? zk->path : "key");
    }
    if (k) {
        k->busy++;
        k->last_used = ++p->clock;
    }
    pthread_mutex_unlock(&p->lock);
    return k;
}

void cuda_key_put(struct cuda_priv *p, struct cuda_key *k)
{
    pthread_mutex_lock(&p->lock);
    k->busy--;
    pthread_mutex_unlock(&p->lock);
}
