/* cuda_sets.c — the CUDA backend's device buffer sets (see cuda_sets.h). */
#include "cuda_sets.h"

#include <errno.h>

#include "child.h"
#include "fault_point.h"
#include "cuda_budget.h"
#include "cuda_keys.h"
#include "cuda_lost.h"
#include "gpu_mem.h"
#include "gpu_prove.h"

struct cuda_set *cuda_set_get(struct cuda_priv *p)
{
    pthread_mutex_lock(&p->lock);
    for (;;) {
        for (unsigned i = 0; i < p->sets_max && i < CUDA_SETS; i++)
            if (!p->sets[i].in_use) {
                p->sets[i].in_use = 1;
                pthread_mutex_unlock(&p->lock);
                return &p->sets[i];
            }
        pthread_cond_wait(&p->set_free, &p->lock);
    }
}

void cuda_set_put(struct cuda_priv *p, struct cuda_set *s)
{
    pthread_mutex_lock(&p->lock);
    s->in_use = 0;
    if (s - p->sets >= (long)p->sets_max) /* the budget holds fewer sets now */
        cuda_set_release(s);
    pthread_cond_signal(&p->set_free);
    pthread_mutex_unlock(&p->lock);
}

void cuda_sets_limit(struct cuda_priv *p, unsigned n)
{
    pthread_mutex_lock(&p->lock);
    p->sets_max = n < 1 ? 1 : n > CUDA_SETS ? CUDA_SETS : n;
    for (unsigned i = p->sets_max; i < CUDA_SETS; i++) /* idle ones go now, the others when put */
        if (!p->sets[i].in_use)
            cuda_set_release(&p->sets[i]);
    pthread_cond_broadcast(&p->set_free);
    pthread_mutex_unlock(&p->lock);
}

void cuda_set_release(struct cuda_set *s)
{
    void **v[] = { &s->a, &s->b, &s->c, &s->s, &s->o1, &s->o2, &s->w };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        gpu_free(*v[i]);
        *v[i] = NULL;
    }
    s->cap_vec = s->cap_wit = 0;
    s->lean = 0;
}

/* Grows the set to zk's vectors (cuda_set_sizes). */
int cuda_set_reserve(struct cuda_priv *p, struct cuda_set *s, const struct zkey *zk, int lean,
                     const struct cuda_key *k, struct sp_err *e)
{
    size_t sz[CUDA_SET_NBUF];
    cuda_set_sizes(zk->domain_size, zk->n_vars, lean, sz);
    size_t vec = sz[0], wit = sz[CUDA_SET_NBUF - 1];
    /* a lean set serves only lean jobs; a fast set serves both */
    if (vec <= s->cap_vec && wit <= s->cap_wit && (lean || !s->lean))
        return 0;
    if (fault_point("gpu-oom", NULL)) {
        size_t all = 0;
        for (int i = 0; i < CUDA_SET_NBUF; i++)
            all += sz[i];
        return sp_fail(e, -ENOMEM, "gpu: out of device memory for %zu MiB (injected)", all >> 20);
    }
    cuda_set_release(s);
    for (;;) {
        void **v[CUDA_SET_NBUF] = { &s->a, &s->b, &s->c, &s->s, &s->o1, &s->o2, &s->w };
        int rc = 0;
        for (size_t i = 0; i < CUDA_SET_NBUF && rc == 0; i++)
            rc = gpu_alloc(v[i], sz[i], e);
        if (rc == 0) {
            s->cap_vec = vec;
            s->cap_wit = wit;
            s->lean = lean;
            return 0;
        }
        cuda_set_release(s);
        if (rc != -ENOMEM)
            return cuda_gpu_failed(rc);
        pthread_mutex_lock(&p->gpu);
        int evicted = cuda_evict_lru(p, k);
        pthread_mutex_unlock(&p->gpu);
        if (evicted < 0)
            return rc;
    }
}
