/* cuda_keys.c — keys resident on the GPU (see cuda_keys.h). */
#include "cuda_keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "child.h"
#include "fault_point.h"
#include "cuda_lost.h"
#include "gpu_msm.h"
#include "gpu_prove.h"

/* device memory kept free beyond a key's points (MSM working buffers, NTT
 * tables, the buffer sets grow): a fraction of the device */
#define KEY_MARGIN_DIV 8

static size_t g1_bytes(const struct zkey *zk)
{
    return zk->curve == CURVE_BN254 ? 64 : 96;
}

void cuda_key_evict(struct cuda_key *k)
{
    gpu_msm_free(k->g1);
    gpu_msm_free(k->g2);
    memset(k, 0, sizeof(*k));
}

size_t cuda_device_free(struct cuda_priv *p, size_t *total)
{
    size_t fr = 0, tot = 0;
    struct sp_err e;
    if (gpu_mem_info(&fr, &tot, &e) < 0)
        return 0;
    if (p->mem_limit) {
        size_t used = tot - fr;
        tot = p->mem_limit;
        fr = used < tot ? tot - used : 0;
    }
    if (total)
        *total = tot;
    return fr;
}

/* Evicts the least recently used idle key other than keep; 0 if one went. */
int cuda_evict_lru(struct cuda_priv *p, const struct cuda_key *keep)
{
    struct cuda_key *lru = NULL;
    for (int i = 0; i < CUDA_MAX_KEYS; i++) {
        struct cuda_key *k = &p->keys[i];
        if (k->zk && k != keep && !k->busy && k->g1 && (!lru || k->last_used < lru->last_used))
            lru = k;
    }
    if (!lru)
        return -1;
    fprintf(stderr, "gpud: evicting key %s from the GPU (least recently used)\n", lru->name);
    cuda_key_evict(lru);
    return 0;
}

/* The points of zk on the device: A, B1, C, H in one G1 engine and B2 in a
 * G2 engine. Called with p->gpu held. -E2BIG when the key cannot fit. */
int cuda_key_upload(struct cuda_priv *p, struct cuda_key *k, struct sp_err *e)
{
    const struct zkey *zk = k->zk;
    size_t nv = zk->n_vars, nc = nv - zk->n_public - 1, n = zk->domain_size;
    size_t g1 = g1_bytes(zk), need = (2 * nv + nc + n) * g1 + nv * 2 * g1, total = 0;
    k->bytes = need;
    for (;;) {
        size_t fr = cuda_device_free(p, &total);
        if (fr >= need + total / KEY_MARGIN_DIV)
            break;
        if (cuda_evict_lru(p, k) < 0) {
            if (need + total / KEY_MARGIN_DIV > total)
                return sp_fail(e, -E2BIG,
                               "key %s is too large for the GPU: its points need %.2f GiB, the "
                               "device has %.2f GiB",
                               k->name, need / 1073741824.0, total / 1073741824.0);
            break; /* other work holds the memory: try */
        }
    }
    if (fault_point("gpu-key-large", NULL))
        return sp_fail(e, -E2BIG, "key %s is too large for the GPU (injected)", k->name);
    enum gpu_group gg1 = zk->curve == CURVE_BN254 ? GPU_BN254_G1 : GPU_BLS12381_G1;
    enum gpu_group gg2 = zk->curve == CURVE_BN254 ? GPU_BN254_G2 : GPU_BLS12381_G2;
    const void *arrays[4] = { zk->a, zk->b1, zk->c, zk->h };
    size_t counts[4] = { nv, nv, nc, n };
    int rc;
    for (;;) {
        rc = gpu_msm_create_arrays(&k->g1, gg1, arrays, counts, 4, e);
        if (rc == 0)
            rc = gpu_msm_create(&k->g2, gg2, zk->b2, nv, e);
        if (rc == 0)
            return 0;
        gpu_msm_free(k->g1);
        gpu_msm_free(k->g2);
        k->g1 = k->g2 = NULL;
        if (rc != -ENOMEM || cuda_evict_lru(p, k) < 0)
            break;
    }
    if (rc == -ENOMEM) /* other work holds the memory: not for good */
        return sp_fail(e, -ENOMEM, "key %s does not fit in the GPU's free memory now (%.2f GiB of points)",
                       k->name, need / 1073741824.0);
    return cuda_gpu_failed(rc);
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
