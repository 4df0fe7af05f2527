/*
 * cuda_backend.c — the CUDA prover backend (see cuda_backend.h, backend.h),
 * on the kernels of gpud/cuda/kernels/gpu.h.
 *
 *   prove_start   uploads a, b, c and the witness off the slot into one of
 *                 the backend's device buffer sets (the slot is released
 *                 after it returns), and makes the key resident first if it
 *                 is not;
 *   prove_finish  holds the GPU for the kernel phase: the three coset LDEs
 *                 (the inputs are kept: each is copied to scratch first), the
 *                 H scalars, the G1 MSMs over the resident A‖B1‖C‖H points
 *                 and the G2 MSM; then the blinding on the host.
 *
 * Two workers share one backend (gpud runs them in two threads), each with
 * its own buffer set: one's uploads and host work overlap the other's
 * kernels (the kernels are built with --default-stream per-thread).
 *
 * Resident keys: each key's points are uploaded once and stay until the key
 * is dropped or device memory runs short, when the least recently used idle
 * key is evicted. A key that does not fit even alone is proved on the
 * fallback backend (be->fallback_on_fault: where `auto` chose CUDA) or
 * fails its attempts with that reason.
 *
 * GPU faults never become wrong proofs: a failed kernel, copy or allocation
 * fails the attempt (or, under `auto`, proves the partition on the fallback
 * backend from the inputs still on the device); a lost context (a sticky
 * error) makes ops->lost say so, so gpud exits and a fresh process takes the
 * GPU; a proof that fails gpud's check is proved again on the fallback
 * (ops->reprove) before an unsatisfied witness is reported.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "child.h"
#include "cuda_backend.h"
#include "gpu.h"
#include "msm.h"
#include "payload.h"

#define CUDA_MAX_KEYS 16
#define CUDA_SETS 2 /* device buffer sets: one per worker */
/* device memory kept free beyond a key's points (MSM working buffers, NTT
 * tables, the buffer sets grow): a fraction of the device */
#define KEY_MARGIN_DIV 8

struct cuda_key {
    const struct zkey *zk; /* identity: the loaded key and its mapping */
    const uint8_t *map;
    char name[64];
    struct gpu_msm *g1, *g2;
    size_t bytes;
    uint64_t last_used;
    int busy;      /* a job between prove_start and prove_finish uses it */
    int too_large; /* proved on the CPU (auto) */
};

struct cuda_set {
    int in_use;
    size_t cap_vec, cap_wit;
    void *a, *b, *c;  /* the inputs, kept for a CPU re-prove */
    void *s, *o1, *o2; /* scratch and the LDE outputs */
    void *w;          /* witness */
};

struct cuda_job {
    struct cuda_key *key;
    struct cuda_set *set;
    void *cpu_job;      /* set when the partition is proved on the CPU */
    uint8_t *witness;   /* host copy, for the G2 MSM on the CPU */
};

struct cuda_priv {
    pthread_mutex_t lock; /* keys, sets, tables */
    pthread_mutex_t gpu;  /* the kernel phase, key uploads and evictions */
    pthread_cond_t set_free;
    struct cuda_key keys[CUDA_MAX_KEYS];
    struct cuda_set sets[CUDA_SETS];
    struct gpu_ntt *ntt[2][ZKEY_MAX_LOG_DOMAIN + 1];
    struct backend *cpu; /* be->fallback: re-proves, and what the GPU cannot prove */
    int fallback;        /* be->fallback_on_fault (auto): a GPU failure proves on cpu */
    int g2_on_cpu;      /* $SLOTPROVE_G2=cpu: measured against the GPU */
    size_t mem_limit;   /* $SLOTPROVE_GPU_MEM_LIMIT (tests): 0 = the device's */
    uint64_t clock;
    void *registered; /* the page-locked slot pool, or NULL */
    char desc[160];
};

static int lost;

static int cuda_lost(struct backend *be)
{
    (void)be;
    return lost;
}

static size_t g1_bytes(const struct zkey *zk)
{
    return zk->curve == CURVE_BN254 ? 64 : 96;
}

/* A failed CUDA call: is the context still usable? */
static int gpu_failed(int rc)
{
    if (rc == -EIO && gpu_context_lost())
        lost = 1;
    return rc;
}

static void key_evict(struct cuda_key *k)
{
    gpu_msm_free(k->g1);
    gpu_msm_free(k->g2);
    memset(k, 0, sizeof(*k));
}

static size_t device_free(struct cuda_priv *p, size_t *total)
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
static int evict_lru(struct cuda_priv *p, const struct cuda_key *keep)
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
    key_evict(lru);
    return 0;
}

/* The points of zk on the device: A, B1, C, H in one G1 engine and B2 in a
 * G2 engine. Called with p->gpu held. -E2BIG when the key cannot fit. */
static int key_upload(struct cuda_priv *p, struct cuda_key *k, struct sp_err *e)
{
    const struct zkey *zk = k->zk;
    size_t nv = zk->n_vars, nc = nv - zk->n_public - 1, n = zk->domain_size;
    size_t g1 = g1_bytes(zk), need = (2 * nv + nc + n) * g1 + nv * 2 * g1, total = 0;
    k->bytes = need;
    for (;;) {
        size_t fr = device_free(p, &total);
        if (fr >= need + total / KEY_MARGIN_DIV)
            break;
        if (evict_lru(p, k) < 0) {
            if (need + total / KEY_MARGIN_DIV > total)
                return sp_fail(e, -E2BIG,
                               "key %s is too large for the GPU: its points need %.2f GiB, the "
                               "device has %.2f GiB",
                               k->name, need / 1073741824.0, total / 1073741824.0);
            break; /* other work holds the memory: try */
        }
    }
    if (child_fault_point("gpu-key-large", NULL))
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
        if (rc != -ENOMEM || evict_lru(p, k) < 0)
            break;
    }
    if (rc == -ENOMEM) /* other work holds the memory: not for good */
        return sp_fail(e, -ENOMEM, "key %s does not fit in the GPU's free memory now (%.2f GiB of points)",
                       k->name, need / 1073741824.0);
    return gpu_failed(rc);
}

/* The key's entry (made if new), marked busy. */
static struct cuda_key *key_get(struct cuda_priv *p, const struct zkey *zk)
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
            key_evict(free_k);
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

static void key_put(struct cuda_priv *p, struct cuda_key *k)
{
    pthread_mutex_lock(&p->lock);
    k->busy--;
    pthread_mutex_unlock(&p->lock);
}

static struct cuda_set *set_get(struct cuda_priv *p)
{
    pthread_mutex_lock(&p->lock);
    for (;;) {
        for (int i = 0; i < CUDA_SETS; i++)
            if (!p->sets[i].in_use) {
                p->sets[i].in_use = 1;
                pthread_mutex_unlock(&p->lock);
                return &p->sets[i];
            }
        pthread_cond_wait(&p->set_free, &p->lock);
    }
}

static void set_put(struct cuda_priv *p, struct cuda_set *s)
{
    pthread_mutex_lock(&p->lock);
    s->in_use = 0;
    pthread_cond_signal(&p->set_free);
    pthread_mutex_unlock(&p->lock);
}

static void set_release_memory(struct cuda_set *s)
{
    void **v[] = { &s->a, &s->b, &s->c, &s->s, &s->o1, &s->o2, &s->w };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        gpu_free(*v[i]);
        *v[i] = NULL;
    }
    s->cap_vec = s->cap_wit = 0;
}

/* Grows the set to vec bytes per vector and wit bytes of witness. */
static int set_reserve(struct cuda_priv *p, struct cuda_set *s, size_t vec, size_t wit,
                       const struct cuda_key *k, struct sp_err *e)
{
    if (vec <= s->cap_vec && wit <= s->cap_wit)
        return 0;
    if (child_fault_point("gpu-oom", NULL))
        return sp_fail(e, -ENOMEM, "gpu: out of device memory for %zu MiB (injected)",
                       (6 * vec + wit) >> 20);
    set_release_memory(s);
    for (;;) {
        void **v[] = { &s->a, &s->b, &s->c, &s->s, &s->o1, &s->o2 };
        int rc = 0;
        for (size_t i = 0; i < 6 && rc == 0; i++)
            rc = gpu_alloc(v[i], vec, e);
        if (rc == 0)
            rc = gpu_alloc(&s->w, wit, e);
        if (rc == 0) {
            s->cap_vec = vec;
            s->cap_wit = wit;
            return 0;
        }
        set_release_memory(s);
        if (rc != -ENOMEM)
            return gpu_failed(rc);
        pthread_mutex_lock(&p->gpu);
        int evicted = evict_lru(p, k);
        pthread_mutex_unlock(&p->gpu);
        if (evicted < 0)
            return rc;
    }
}

static void job_free(struct cuda_priv *p, struct cuda_job *j)
{
    if (!j)
        return;
    if (j->set)
        set_put(p, j->set);
    if (j->key)
        key_put(p, j->key);
    free(j->witness);
    free(j);
}

static int cpu_start(struct cuda_priv *p, struct cuda_job *j, const struct zkey *zk,
                     const struct prove_input *in, struct sp_err *e)
{
    return p->cpu->ops->prove_start(p->cpu, zk, in, &j->cpu_job, e);
}

static int cuda_prove_start(struct backend *be, const struct zkey *zk,
                            const struct prove_input *in, void **job, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    size_t vec = (size_t)pl.vec_bytes, wit = (size_t)pl.witness_bytes;
    struct cuda_job *j = calloc(1, sizeof(*j));
    int rc = 0;
    if (!j)
        return sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    if (lost) {
        free(j);
        return sp_fail(e, -EIO, "gpu: the CUDA context was lost earlier; gpud restarts");
    }
    j->key = key_get(p, zk);
    if (!j->key) {
        free(j);
        return sp_fail(e, -EBUSY, "cuda backend: every key slot is busy");
    }
    struct cuda_key *k = j->key;
    int on_cpu = 0;
    if (!k->g1 && !k->too_large) {
        pthread_mutex_lock(&p->gpu);
        if (!k->g1 && !k->too_large) {
            rc = key_upload(p, k, e);
            if (rc == -E2BIG)
                k->too_large = 1;
        }
        pthread_mutex_unlock(&p->gpu);
        if (rc < 0 && !((rc == -E2BIG || rc == -ENOMEM) && p->fallback)) {
            job_free(p, j);
            return rc;
        }
        if (rc == 0 && k->g1)
            fprintf(stderr, "gpud: key %s resident on the GPU (%.2f GiB of points)\n", k->name,
                    k->bytes / 1073741824.0);
        else if (rc < 0) {
            fprintf(stderr, "gpud: %s; proving it on the CPU\n", e->msg);
            on_cpu = 1;
        }
        rc = 0;
    }
    if (k->too_large || on_cpu) {
        if (!p->fallback) {
            job_free(p, j);
            return sp_fail(e, -E2BIG, "key %s is too large for the GPU", k->name);
        }
        rc = cpu_start(p, j, zk, in, e);
        if (rc < 0) {
            job_free(p, j);
            return rc;
        }
        *job = j;
        return 0;
    }
    j->set = set_get(p);
    rc = set_reserve(p, j->set, vec, wit, k, e);
    if (rc == 0)
        rc = gpu_upload(j->set->a, in->a, vec, e);
    if (rc == 0)
        rc = gpu_upload(j->set->b, in->b, vec, e);
    if (rc == 0)
        rc = gpu_upload(j->set->c, in->c, vec, e);
    if (rc == 0)
        rc = gpu_upload(j->set->w, in->witness, wit, e);
    if (rc == 0 && p->g2_on_cpu) {
        j->witness = malloc(wit);
        if (!j->witness)
            rc = sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
        else
            memcpy(j->witness, in->witness, wit);
    }
    if (rc < 0) {
        gpu_failed(rc);
        if (p->fallback && !lost) {
            fprintf(stderr, "gpud: %s; proving this partition on the CPU\n", e->msg);
            set_put(p, j->set);
            j->set = NULL;
            rc = cpu_start(p, j, zk, in, e);
        }
        if (rc < 0) {
            job_free(p, j);
            return rc;
        }
    }
    *job = j;
    return 0;
}

struct g2_cpu_arg {
    const struct zkey *zk;
    const uint8_t *witness;
    unsigned nthreads;
    union {
        bn254_g2_jac_t bn254;
        bls12381_g2_jac_t bls12381;
    } r;
    int rc;
};

static void *g2_cpu_thread(void *arg)
{
    struct g2_cpu_arg *g = arg;
    if (g->zk->curve == CURVE_BN254)
        g->rc = bn254_g2_msm(&g->r.bn254, g->zk->b2, g->witness, g->zk->n_vars, g->nthreads);
    else
        g->rc = bls12381_g2_msm(&g->r.bls12381, g->zk->b2, g->witness, g->zk->n_vars, g->nthreads);
    return NULL;
}

union g1_jac {
    bn254_g1_jac_t bn254;
    bls12381_g1_jac_t bls12381;
};

/* The kernel phase of one proof; called with p->gpu held. */
static int gpu_phase(struct backend *be, const struct zkey *zk, struct cuda_job *j,
                     union g1_jac r[4], void *g2, struct g2_cpu_arg *g2c, struct stage_times *t,
                     struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct cuda_set *s = j->set;
    enum gpu_curve curve = zk->curve == CURVE_BN254 ? GPU_BN254 : GPU_BLS12381;
    unsigned lg = zk->log_domain;
    size_t n = zk->domain_size, nv = zk->n_vars, np = zk->n_public, nc = nv - np - 1;
    size_t vec = n * 32;
    int rc;
    uint64_t t0 = now_ns();

    if (!p->ntt[curve][lg] && (rc = gpu_ntt_create(&p->ntt[curve][lg], curve, lg, e)) < 0)
        return rc;
    struct gpu_ntt *d = p->ntt[curve][lg];
    if (child_fault_point("gpu-kernel", NULL) && (rc = gpu_inject_fault(0, e)) < 0)
        return rc;
    if (child_fault_point("gpu-trap", NULL) && (rc = gpu_inject_fault(1, e)) < 0)
        return rc;
    /* o1 = LDE(a)·LDE(b), o2 = LDE(c), s = the H scalars; a, b, c kept */
    if ((rc = gpu_copy(s->s, s->a, vec, e)) < 0 || (rc = gpu_ntt_coset_lde(d, s->o1, s->s, e)) < 0 ||
        (rc = gpu_copy(s->s, s->b, vec, e)) < 0 || (rc = gpu_ntt_coset_lde(d, s->o2, s->s, e)) < 0 ||
        (rc = gpu_fr_mul(curve, s->o1, s->o1, s->o2, n, e)) < 0 ||
        (rc = gpu_copy(s->s, s->c, vec, e)) < 0 || (rc = gpu_ntt_coset_lde(d, s->o2, s->s, e)) < 0 ||
        (rc = gpu_h_scalars(curve, s->s, s->o1, NULL, s->o2, n, e)) < 0 || (rc = gpu_sync(e)) < 0)
        return rc;
    t->ns[STAGE_NTT] = now_ns() - t0;
    if (be->progress)
        be->progress(be->progress_arg, STAGE_NTT, t->ns[STAGE_NTT]);

    struct gpu_msm *g1 = j->key->g1;
    struct { enum stage st; size_t at; const void *sc; size_t cnt; } msm[4] = {
        { STAGE_MSM_A, 0, s->w, nv },
        { STAGE_MSM_B1, nv, s->w, nv },
        { STAGE_MSM_C, 2 * nv, (const uint8_t *)s->w + 32 * (np + 1), nc },
        { STAGE_MSM_H, 2 * nv + nc, s->s, n },
    };
    for (int i = 0; i < 4; i++) {
        uint64_t s0 = now_ns();
        if ((rc = gpu_msm_run_at(g1, &r[i], msm[i].at, msm[i].sc, msm[i].cnt, e)) < 0)
            return rc;
        t->ns[msm[i].st] = now_ns() - s0;
        if (be->progress)
            be->progress(be->progress_arg, msm[i].st, t->ns[msm[i].st]);
    }
    if (!g2c) {
        uint64_t s0 = now_ns();
        if ((rc = gpu_msm_run_at(j->key->g2, g2, 0, s->w, nv, e)) < 0)
            return rc;
        t->ns[STAGE_MSM_B2] = now_ns() - s0;
        if (be->progress)
            be->progress(be->progress_arg, STAGE_MSM_B2, t->ns[STAGE_MSM_B2]);
    }
    if (child_fault_point("gpu-wrong", NULL)) /* a silent fault: a wrong πH */
        r[3] = r[0];
    return 0;
}

/* Downloads the kept inputs and proves them on the CPU. */
static int cpu_from_device(struct backend *be, const struct zkey *zk, struct cuda_job *j,
                           struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    size_t vec = (size_t)pl.vec_bytes, wit = (size_t)pl.witness_bytes;
    uint8_t *a = malloc(vec), *b = malloc(vec), *c = malloc(vec), *w = malloc(wit);
    int rc = (a && b && c && w) ? 0 : sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    if (rc == 0 && ((rc = gpu_download(a, j->set->a, vec, e)) < 0 ||
                    (rc = gpu_download(b, j->set->b, vec, e)) < 0 ||
                    (rc = gpu_download(c, j->set->c, vec, e)) < 0 ||
                    (rc = gpu_download(w, j->set->w, wit, e)) < 0))
        gpu_failed(rc);
    void *cj = NULL;
    if (rc == 0) {
        struct prove_input in = { a, b, c, w };
        p->cpu->progress = be->progress;
        p->cpu->progress_arg = be->progress_arg;
        rc = p->cpu->ops->prove_start(p->cpu, zk, &in, &cj, e);
    }
    free(a), free(b), free(c), free(w);
    if (rc == 0)
        rc = p->cpu->ops->prove_finish(p->cpu, zk, cj, out, t, e);
    return rc;
}

static int cuda_prove_finish(struct backend *be, const struct zkey *zk, void *job,
                             struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct cuda_job *j = job;
    int rc;
    if (j->cpu_job) {
        p->cpu->progress = be->progress;
        p->cpu->progress_arg = be->progress_arg;
        rc = p->cpu->ops->prove_finish(p->cpu, zk, j->cpu_job, out, t, e);
        j->cpu_job = NULL; /* the CPU backend freed it */
        if (rc < 0)
            job_free(p, j);
        return rc;
    }
    union g1_jac r[4];
    union { bn254_g2_jac_t bn254; bls12381_g2_jac_t bls12381; } g2;
    struct g2_cpu_arg g2c;
    memset(&g2c, 0, sizeof(g2c));
    g2c.zk = zk;
    g2c.witness = j->witness;
    g2c.nthreads = be->nthreads;
    pthread_t g2t;
    int g2_thread = 0;
    uint64_t g2_start = now_ns();
    if (p->g2_on_cpu && j->witness)
        g2_thread = pthread_create(&g2t, NULL, g2_cpu_thread, &g2c) == 0;
    pthread_mutex_lock(&p->gpu);
    rc = gpu_phase(be, zk, j, r, &g2, g2_thread ? &g2c : NULL, t, e);
    pthread_mutex_unlock(&p->gpu);
    if (g2_thread) {
        pthread_join(g2t, NULL);
        t->ns[STAGE_MSM_B2] = now_ns() - g2_start;
        if (rc == 0 && g2c.rc < 0)
            rc = sp_fail(e, g2c.rc, "G2 MSM on the CPU: out of memory");
        if (g2c.rc == 0)
            memcpy(&g2, &g2c.r, sizeof(g2));
    }
    if (rc < 0) {
        gpu_failed(rc);
        if (p->fallback && !lost) {
            fprintf(stderr, "gpud: %s; proving this partition on the CPU\n", e->msg);
            rc = cpu_from_device(be, zk, j, out, t, e);
        }
        if (rc < 0)
            job_free(p, j);
        return rc;
    }
    if (zk->curve == CURVE_BN254)
        rc = bn254_groth16_assemble(zk, &r[0].bn254, &r[1].bn254, &g2.bn254, &r[2].bn254,
                                    &r[3].bn254, out, e);
    else
        rc = bls12381_groth16_assemble(zk, &r[0].bls12381, &r[1].bls12381, &g2.bls12381,
                                       &r[2].bls12381, &r[3].bls12381, out, e);
    /* on success the inputs stay on the device until the proof has passed
     * gpud's check: job_done or reprove then */
    if (rc < 0)
        job_free(p, j);
    return rc;
}

static int cuda_reprove(struct backend *be, const struct zkey *zk, void *job,
                        struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_job *j = job;
    return j->set ? cpu_from_device(be, zk, j, out, t, e)
                  : sp_fail(e, -EINVAL, "cuda backend: the partition's inputs are gone");
}

static void cuda_job_done(struct backend *be, void *job)
{
    job_free(be->priv, job);
}

static void cuda_key_drop(struct backend *be, const struct zkey *zk)
{
    struct cuda_priv *p = be->priv;
    pthread_mutex_lock(&p->gpu);
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUDA_MAX_KEYS; i++)
        if (p->keys[i].zk == zk && !p->keys[i].busy)
            key_evict(&p->keys[i]);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->gpu);
}

static int cuda_status(struct backend *be, char *buf, size_t len)
{
    struct cuda_priv *p = be->priv;
    size_t total = 0, fr = device_free(p, &total);
    int w = snprintf(buf, len, "%s; %.1f of %.1f GiB in use; slot pool %s; resident keys:",
                     p->desc, (total - fr) / 1073741824.0, total / 1073741824.0,
                     p->registered ? "page-locked" : "staged");
    int any = 0;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUDA_MAX_KEYS && w > 0 && (size_t)w < len; i++) {
        struct cuda_key *k = &p->keys[i];
        if (!k->zk || (!k->g1 && !k->too_large))
            continue;
        w += snprintf(buf + w, len - w, "%s %s (%.2f GiB%s)", any ? "," : "", k->name,
                      k->bytes / 1073741824.0, k->too_large ? ", too large: CPU" : "");
        any = 1;
    }
    pthread_mutex_unlock(&p->lock);
    if (!any && w > 0 && (size_t)w < len)
        snprintf(buf + w, len - w, " none");
    return 0;
}

/* The slot pool page-locked: uploads straight from shared memory. With
 * $SLOTPROVE_NO_HOST_REGISTER=1 (benchmarks) the driver stages them. */
static void cuda_host_memory(struct backend *be, void *ptr, size_t len)
{
    struct cuda_priv *p = be->priv;
    struct sp_err e;
    const char *no = getenv("SLOTPROVE_NO_HOST_REGISTER");
    if (no && strcmp(no, "1") == 0)
        return;
    if (gpu_host_register(ptr, len, &e) < 0)
        fprintf(stderr, "gpud: %s; uploads are staged instead\n", e.msg);
    else
        p->registered = ptr;
}

static int cuda_open(struct backend *be, struct sp_err *e)
{
    if (!be->fallback)
        return sp_fail(e, -EINVAL, "cuda backend: no fallback backend for re-proves");
    struct cuda_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    int rc = gpu_describe(p->desc, sizeof(p->desc), e);
    if (rc < 0) {
        free(p);
        return rc;
    }
    p->cpu = be->fallback;
    p->fallback = be->fallback_on_fault;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->gpu, NULL);
    pthread_cond_init(&p->set_free, NULL);
    const char *g2 = getenv("SLOTPROVE_G2");
    p->g2_on_cpu = g2 && strcmp(g2, "cpu") == 0;
    const char *lim = getenv("SLOTPROVE_GPU_MEM_LIMIT");
    p->mem_limit = lim ? (size_t)strtoull(lim, NULL, 10) : 0;
    be->priv = p;
    snprintf(be->description, sizeof(be->description), "cuda: %s", p->desc);
    return 0;
}

static void cuda_close(struct backend *be)
{
    struct cuda_priv *p = be->priv;
    if (!p)
        return;
    if (!lost) {
        if (p->registered)
            gpu_host_unregister(p->registered);
        for (int i = 0; i < CUDA_MAX_KEYS; i++)
            if (p->keys[i].zk)
                key_evict(&p->keys[i]);
        for (int i = 0; i < CUDA_SETS; i++)
            set_release_memory(&p->sets[i]);
        for (int c = 0; c < 2; c++)
            for (unsigned k = 0; k <= ZKEY_MAX_LOG_DOMAIN; k++)
                gpu_ntt_free(p->ntt[c][k]);
    }
    free(p); /* the fallback is its opener's to close (select.c) */
    be->priv = NULL;
}

const struct backend_ops cuda_backend_ops = {
    .name = "cuda",
    .workers = 2,
    .device_errors = 1,
    .open = cuda_open,
    .prove_start = cuda_prove_start,
    .prove_finish = cuda_prove_finish,
    .job_done = cuda_job_done,
    .reprove = cuda_reprove,
    .lost = cuda_lost,
    .key_drop = cuda_key_drop,
    .status = cuda_status,
    .host_memory = cuda_host_memory,
    .close = cuda_close,
};
