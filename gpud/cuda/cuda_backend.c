/*
 * cuda_backend.c — the CUDA prover backend (see cuda_backend.h, backend.h),
 * on the kernels of gpud/cuda/kernels/gpu_*.h, and its zkey row (the
 * bellperson row: cuda_bellperson_row.h).
 *
 *   prove_start   uploads a, b and the witness off the slot into one of
 *                 the backend's device buffer sets (the slot is released
 *                 after it returns), and makes the key resident first if it
 *                 is not;
 *   prove_finish  holds the GPU for the kernel phase (gpu_h_stage): c = a∘b
 *                 on the device, the three coset LDEs (a fast set's inputs
 *                 are kept: each is copied to scratch first), the H
 *                 scalars, the G1 MSMs over the resident A‖B1‖C‖H points
 *                 and the G2 MSM; then the blinding on the host.
 *
 * Two workers share one backend (gpud runs them in two threads), each with
 * its own buffer set (cuda_sets.c): one's uploads and host work overlap the other's
 * kernels (the kernels are built with --default-stream per-thread).
 *
 * Device memory is a budget (be->device_mem, gpud's --gpu-mem; default the
 * device's free memory at open less gpu_mem_margin): every device
 * allocation is charged to the ledger of kernels/gpu_mem.h, which refuses
 * what would pass it. Keys (cuda_keys.c, cuda_budget.c): each key's points
 * are uploaded once and stay until the key is dropped or the budget runs
 * short, when the least recently used idle key is evicted; a key whose
 * points do not fit beside the working buffers keeps them in page-locked
 * host memory and streams them per MSM part, and one buffer set (worker)
 * is used when two do not fit. A key that does not fit even streamed with
 * one worker is refused when gpud loads it (ops->key_check) under `cuda`,
 * and proved on the fallback backend (be->fallback_on_fault: where `auto`
 * chose CUDA).
 *
 * GPU faults never become wrong proofs: a failed kernel, copy or allocation
 * fails the attempt (or, under `auto`, proves the partition on the fallback
 * backend from the inputs still on the device); a lost context (a sticky
 * error) makes ops->lost say so, so gpud exits and a fresh process takes the
 * GPU; a proof that fails gpud's check is proved again on the fallback
 * (ops->reprove, cuda_fallback.c) before an unsatisfied witness is
 * reported.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "bls12381.h"
#include "bn254.h"
#include "child.h"
#include "fault_point.h"
#include "cuda_backend.h"
#include "cuda_bellperson_row.h"
#include "cuda_budget.h"
#include "cuda_fallback.h"
#include "cuda_keys.h"
#include "cuda_lost.h"
#include "cuda_priv.h"
#include "cuda_sets.h"
#include "gpu_device.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "gpu_prove.h"
#include "msm.h"
#include "payload.h"
#include "log_stamp.h"


static int cuda_lost(struct backend *be)
{
    (void)be;
    return cuda_is_lost();
}

static void job_free(struct cuda_priv *p, struct cuda_job *j)
{
    if (!j)
        return;
    if (j->set)
        cuda_set_put(p, j->set);
    if (j->key)
        cuda_key_put(p, j->key);
    free(j->witness);
    free(j);
}

static int cuda_prove_start(struct backend *be, const struct child_key *ck,
                            const struct prove_input *in, void **job, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    const struct zkey *zk = &ck->zk;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    size_t vec = (size_t)pl.vec_bytes, wit = (size_t)pl.witness_bytes;
    struct cuda_job *j = calloc(1, sizeof(*j));
    int rc = 0;
    if (!j)
        return sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    if (cuda_is_lost()) {
        free(j);
        return sp_fail(e, -EIO, "gpu: the CUDA context was lost earlier; gpud restarts");
    }
    j->key = cuda_key_get(p, zk);
    if (!j->key) {
        free(j);
        return sp_fail(e, -EBUSY, "cuda backend: every key slot is busy");
    }
    struct cuda_key *k = j->key;
    int on_cpu = 0;
    if (!k->g1 && !k->too_large) {
        uint64_t k0 = now_ns();
        pthread_mutex_lock(&p->gpu);
        if (!k->g1 && !k->too_large) {
            rc = cuda_key_upload(p, k, e);
            if (rc == -E2BIG)
                k->too_large = 1;
        }
        pthread_mutex_unlock(&p->gpu);
        if (rc < 0 && !((rc == -E2BIG || rc == -ENOMEM) && p->fallback)) {
            job_free(p, j);
            return rc;
        }
        if (rc == 0 && k->g1)
            diag(LOG_NOTE, "gpud: key %s on the GPU: %s (%.2f GiB of device memory) in %.1f ms",
                    k->name,
                    k->stream ? (k->host_registered ? "points streamed from page-locked host memory"
                                                    : "points streamed, staged by the driver")
                              : "points resident",
                    k->bytes / 1073741824.0, (now_ns() - k0) / 1e6);
        else if (rc < 0) {
            diag(LOG_WARN, "gpud: %s; proving it on the CPU", e->msg);
            on_cpu = 1;
        }
        rc = 0;
    }
    if (k->g1 && k->sets != p->sets_max)
        cuda_sets_limit(p, k->sets);
    if (k->too_large || on_cpu) {
        if (!p->fallback) {
            job_free(p, j);
            return sp_fail(e, -E2BIG, "key %s is too large for the GPU", k->name);
        }
        rc = cuda_fallback_start(p, ck, in, &j->cpu_job, e);
        if (rc < 0) {
            job_free(p, j);
            return rc;
        }
        *job = j;
        return 0;
    }
    uint64_t s0 = now_ns();
    j->set = cuda_set_get(p);
    uint64_t s1 = now_ns();
    rc = cuda_set_reserve(p, j->set, zk, k->lean, k, e);
    uint64_t u0 = now_ns();
    if (rc == 0)
        rc = gpu_upload(j->set->a, in->a, vec, e);
    if (rc == 0)
        rc = gpu_upload(j->set->b, in->b, vec, e);
    if (rc == 0)
        rc = gpu_upload(j->set->w, in->witness, wit, e);
    if (rc == 0 && !k->uploads_timed) {
        /* once per key: where the time before the kernels goes (the
         * wait for a free buffer set, its allocation, the copies) */
        uint64_t u1 = now_ns();
        double gib = (2.0 * vec + wit) / 1073741824.0;
        k->uploads_timed = 1;
        diag(LOG_NOTE,
                "gpud: key %s upload: a, b and the witness, %.2f GiB in %.1f ms (%.1f GB/s, slot pool %s); "
                "buffer set wait %.1f ms, allocation %.1f ms",
                k->name, gib, (u1 - u0) / 1e6, (2.0 * vec + wit) / (double)(u1 - u0 ? u1 - u0 : 1),
                p->registered ? "page-locked" : "staged by the driver", (s1 - s0) / 1e6, (u0 - s1) / 1e6);
    }
    if (rc == 0 && p->g2_on_cpu) {
        j->witness = malloc(wit);
        if (!j->witness)
            rc = sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
        else
            memcpy(j->witness, in->witness, wit);
    }
    if (rc < 0) {
        cuda_gpu_failed(rc);
        if (p->fallback && !cuda_is_lost()) {
            diag(LOG_WARN, "gpud: %s; proving this partition on the CPU", e->msg);
            cuda_set_put(p, j->set);
            j->set = NULL;
            rc = cuda_fallback_start(p, ck, in, &j->cpu_job, e);
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
    int rc;
    uint64_t t0 = now_ns();

    /* a lean set's LDEs run on a compact domain (no domain-sized twiddles) */
    struct gpu_ntt **dp = &p->ntt[s->lean][curve][lg];
    if (!*dp && (rc = s->lean ? gpu_ntt_create_compact(dp, curve, lg, e) : gpu_ntt_create(dp, curve, lg, e)) < 0)
        return rc;
    struct gpu_ntt *d = *dp;
    if (fault_point("gpu-kernel", NULL) && (rc = gpu_inject_fault(0, e)) < 0)
        return rc;
    if (fault_point("gpu-trap", NULL) && (rc = gpu_inject_fault(1, e)) < 0)
        return rc;
    void *hsc; /* the H MSM's scalars */
    /* gpu_h_scalars' constant for a, b in the slot's form (shm/payload.h:
     * standard form) and c = a∘b, their Montgomery product formed on the
     * device: the H values come out as h·R^-1, and the product with R^2
     * (plain limbs) leaves h */
    const uint64_t *k = curve == GPU_BN254 ? bn254_fr_r2.l : bls12381_fr_r2.l;
    /* c = a∘b formed on the device, the LDEs, the H scalars: fast, a and
     * b kept (for a CPU re-prove); lean, all in place, the inputs gone
     * from here on */
    struct gpu_h_bufs hb = { s->lean, s->a, s->b, s->c, s->s, s->o1, s->o2 };
    if ((rc = gpu_h_stage(d, curve, &hb, k, n, &hsc, e)) < 0)
        return rc;
    t->ns[STAGE_NTT] = now_ns() - t0;
    if (be->progress)
        be->progress(be->progress_arg, STAGE_NTT, t->ns[STAGE_NTT]);

    struct gpu_msm *g1 = j->key->g1;
    struct { enum stage st; size_t at; const void *sc; size_t cnt; } msm[4] = {
        { STAGE_MSM_A, 0, s->w, nv },
        { STAGE_MSM_B1, nv, s->w, nv },
        { STAGE_MSM_C, 2 * nv, (const uint8_t *)s->w + 32 * (np + 1), nc },
        { STAGE_MSM_H, 2 * nv + nc, hsc, n },
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
    if (fault_point("gpu-wrong", NULL)) /* a silent fault: a wrong πH */
        r[3] = r[0];
    /* the device's use as the driver counts it, with every buffer of the
     * proof still held: the figure the budget is checked against */
    size_t total = 0, fr = cuda_device_free(p, &total);
    if (total && total - fr > p->device_peak)
        p->device_peak = total - fr;
    return 0;
}

static int cuda_prove_finish(struct backend *be, const struct child_key *ck, void *job,
                             struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct cuda_job *j = job;
    const struct zkey *zk = &ck->zk;
    int rc;
    if (j->cpu_job) {
        rc = cuda_fallback_finish(be, ck, j->cpu_job, out, t, e);
        j->cpu_job = NULL; /* the CPU backend freed it */
        j->on_fallback = 1;
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
        cuda_gpu_failed(rc);
        /* a lean set's inputs were overwritten: the partition is proved
         * again from the start (the failure is the device's) */
        if (p->fallback && !cuda_is_lost() && !j->set->lean) {
            diag(LOG_WARN, "gpud: %s; proving this partition on the CPU", e->msg);
            rc = cuda_cpu_from_device(be, ck, j, out, t, e);
            j->on_fallback = rc == 0;
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

static int cuda_reprove(struct backend *be, const struct child_key *ck, void *job,
                        struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_job *j = job;
    if (j->on_fallback) /* the fallback proved it: its check's verdict stands */
        return 1;
    if (j->set && j->set->lean) /* its inputs were overwritten by the LDEs in place */
        return sp_fail(e, -SP_EDEVICE,
                       "cuda backend: the proof failed its check and the partition's inputs are not kept "
                       "on the device under this budget (lean buffers): it is proved again");
    return j->set ? cuda_cpu_from_device(be, ck, j, out, t, e)
                  : sp_fail(e, -EINVAL, "cuda backend: the partition's inputs are gone");
}

static void cuda_job_done(struct backend *be, void *job)
{
    job_free(be->priv, job);
}

static void cuda_key_drop(struct backend *be, const struct child_key *ck)
{
    struct cuda_priv *p = be->priv;
    const struct zkey *zk = &ck->zk;
    pthread_mutex_lock(&p->gpu);
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUDA_MAX_KEYS; i++)
        if (p->keys[i].zk == zk && !p->keys[i].busy)
            cuda_key_evict(&p->keys[i]);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->gpu);
}

static int cuda_status(struct backend *be, char *buf, size_t len)
{
    struct cuda_priv *p = be->priv;
    size_t total = 0, fr = cuda_device_free(p, &total);
    /* the keys first: gpud's status line has 512 bytes, the memory figures
     * are cut before them */
    int w = snprintf(buf, len, "%s; slot pool %s; resident keys:", p->desc,
                     p->registered ? "page-locked" : "staged");
    int any = 0;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUDA_MAX_KEYS && w > 0 && (size_t)w < len; i++) {
        struct cuda_key *k = &p->keys[i];
        if (!k->zk || (!k->g1 && !k->too_large))
            continue;
        w += snprintf(buf + w, len - w, "%s %s (%.2f GiB%s)", any ? "," : "", k->name,
                      k->bytes / 1073741824.0,
                      k->too_large ? ", too large: CPU" : k->stream ? ", points streamed" : "");
        any = 1;
    }
    pthread_mutex_unlock(&p->lock);
    if (!any && w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - w, " none");
    char ledger[300];
    gpu_mem_describe(ledger, sizeof(ledger));
    if (w > 0 && (size_t)w < len)
        snprintf(buf + w, len - w,
                 "; device memory %s GiB; device %.1f of %.1f GiB in use (%.1f after a proof, "
                 "highest); %u worker buffer set%s",
                 ledger, (total - fr) / 1073741824.0, total / 1073741824.0,
                 p->device_peak / 1073741824.0, p->sets_max, p->sets_max == 1 ? "" : "s");
    return 0;
}

/* The ledger's budget and what it holds (gpu_mem.h). */
static void cuda_device_memory(struct backend *be, uint64_t *budget, uint64_t *held)
{
    (void)be;
    *budget = gpu_mem_budget();
    *held = gpu_mem_used(GPU_MEM_NPARTS);
}

/* The slot pool page-locked: uploads straight from shared memory. Its
 * lock's device cost is charged (gpu_mem_register) before any key is
 * planned, and every key's plan counts it (pool_pinned). With
 * $SLOTPROVE_NO_HOST_REGISTER=1 (benchmarks) the driver stages them. */
static void cuda_host_memory(struct backend *be, void *ptr, size_t len)
{
    struct cuda_priv *p = be->priv;
    struct sp_err e;
    const char *no = getenv("SLOTPROVE_NO_HOST_REGISTER");
    if (no && strcmp(no, "1") == 0)
        return;
    struct gpu_mem_pin pin;
    if (gpu_mem_register(ptr, len, "slot pool", &pin, &e) < 0) {
        diag(LOG_WARN, "gpud: %s; uploads are staged instead", e.msg);
        return;
    }
    p->registered = ptr;
    p->pool_pinned = pin.charged;
    diag(LOG_NOTE, "gpud: slot pool: %.2f GiB page-locked; device cost measured %.1f MiB, charged "
            "%.1f MiB (pinned)", len / 1073741824.0, pin.measured / 1048576.0, pin.charged / 1048576.0);
}

static int cuda_open(struct backend *be, struct sp_err *e)
{
    if (!be->fallback)
        return sp_fail(e, -EINVAL, "cuda backend: no fallback backend for re-proves");
    struct cuda_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    /* every kernel module loaded with the context, so the memory in use
     * when the budget is set counts them (gpu_mem_context_reserve); before
     * the first CUDA call of the process */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    int rc = gpu_describe(p->desc, sizeof(p->desc), e);
    if (rc < 0) {
        free(p);
        return rc;
    }
    p->fb = be->fallback;
    p->fallback = be->fallback_on_fault;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->gpu, NULL);
    pthread_cond_init(&p->set_free, NULL);
    const char *g2 = getenv("SLOTPROVE_G2");
    p->g2_on_cpu = g2 && strcmp(g2, "cpu") == 0;
    /* an explicit --gpu-mem is all this gpud holds: its CUDA context too */
    size_t reserve = be->device_mem ? gpu_mem_context_reserve(gpu_msm_local_bytes()) : 0;
    size_t floor = cuda_budget_floor();
    if (!floor) {
        free(p);
        return sp_fail(e, -EIO, "gpu: cannot size the MSM buffers (a CUDA error)");
    }
    if (be->device_mem && be->device_mem < reserve + floor) {
        free(p);
        return sp_fail(e, -ENOMEM,
                       "--gpu-mem %.0f MiB is too small: one worker needs at least %.0f MiB of "
                       "device memory (%.0f MiB for the CUDA context, kernels and local memory, %.0f MiB of "
                       "buffers for the smallest key, its points streamed)",
                       be->device_mem / 1048576.0, (reserve + floor) / 1048576.0,
                       reserve / 1048576.0, floor / 1048576.0);
    }
    size_t want = be->device_mem ? be->device_mem - reserve : 0;
    unsigned share = be->device_share > 1 ? be->device_share : 1;
    if (!want && share > 1) {
        /* the default, divided among the gpuds that share this device
         * (serve's --gpu-share): each takes its part of the free memory
         * less the margin, so together they do not over-commit it */
        size_t fr = 0, tot = 0;
        if ((rc = gpu_mem_info(&fr, &tot, e)) < 0) {
            free(p);
            return rc;
        }
        size_t m = gpu_mem_margin(tot);
        want = fr > m ? (fr - m) / share : 0;
        if (!want) {
            free(p);
            return sp_fail(e, -ENOMEM, "gpu: %.2f GiB free less the %.2f GiB margin leaves nothing",
                           fr / 1073741824.0, m / 1073741824.0);
        }
    }
    p->budget = gpu_mem_set_budget(want, e);
    if (!p->budget) {
        free(p);
        return -ENOMEM;
    }
    p->sets_max = CUDA_SETS;
    be->priv = p;
    char how[64] = "";
    if (be->device_mem)
        snprintf(how, sizeof(how), " (--gpu-mem less the context)");
    else if (share > 1)
        snprintf(how, sizeof(how), " (1/%u of the free memory less the margin)", share);
    snprintf(be->description, sizeof(be->description), "cuda: %.100s, device budget %.2f GiB%s",
             p->desc, p->budget / 1073741824.0, how);
    return 0;
}

/* Whether zk can be proved within the budget (cuda_budget.h); under auto
 * a key that cannot is proved on the CPU, so only said. */
static int cuda_key_check(struct backend *be, const struct child_key *ck, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    const struct zkey *zk = &ck->zk;
    struct cuda_plan pl;
    const char *base = strrchr(zk->path ? zk->path : "key", '/');
    const char *name = base ? base + 1 : zk->path ? zk->path : "key";
    /* the key file's lock counted at its ceiling (it is made below, after
     * the plan); the upload plans again with what it was charged */
    int rc = cuda_plan_key(zk, name, p->budget, p->pool_pinned, cuda_key_pin_planned(NULL, zk), &pl, e);
    if (rc == -E2BIG && p->fallback) {
        diag(LOG_WARN, "gpud: %s; it is proved on the CPU", e->msg);
        return 0;
    }
    if (rc == 0) {
        /* the key's jobs run on the workers its plan holds buffers for */
        cuda_sets_limit(p, pl.sets);
        char parts[40] = "unbounded";
        if (pl.chunk)
            snprintf(parts, sizeof(parts), "of at most 2^%d points", __builtin_ctzl(pl.chunk));
        diag(LOG_NOTE,
                "gpud: key %s within the %.2f GiB device budget: points %s, MSM parts %s, "
                "%u %sworker buffer set%s, %.2f GiB planned (%.0f MiB of it page-locked host "
                "memory's device cost)",
                name, p->budget / 1073741824.0, pl.stream ? "streamed from host memory" : "resident",
                parts, pl.sets, pl.lean ? "lean (LDEs in place) " : "", pl.sets == 1 ? "" : "s",
                pl.total / 1073741824.0, pl.pinned / 1048576.0);
        /* streamed points: page-lock the key file now, once, not in the
         * first proof */
        if (pl.stream)
            cuda_key_pin(p, zk);
    }
    return rc == -E2BIG || rc == 0 ? rc : cuda_gpu_failed(rc);
}

/* The workers the budget holds buffers for now (cuda_sets_limit). */
static unsigned cuda_workers_now(struct backend *be)
{
    struct cuda_priv *p = be->priv;
    pthread_mutex_lock(&p->lock);
    unsigned n = p->sets_max;
    pthread_mutex_unlock(&p->lock);
    return n;
}

static void cuda_close(struct backend *be)
{
    struct cuda_priv *p = be->priv;
    if (!p)
        return;
    char ledger[300];
    gpu_mem_describe(ledger, sizeof(ledger));
    diag(LOG_NOTE, "gpud: device memory at exit: %s GiB; device peak after a proof %.2f GiB", ledger,
            p->device_peak / 1073741824.0);
    if (!cuda_is_lost()) {
        if (p->registered)
            gpu_mem_unregister(p->registered);
        for (int i = 0; i < CUDA_MAX_KEYS; i++)
            if (p->keys[i].zk)
                cuda_key_evict(&p->keys[i]);
        for (int i = 0; i < CUDA_SETS; i++)
            cuda_set_release(&p->sets[i]);
        for (int l = 0; l < 2; l++)
            for (int c = 0; c < 2; c++)
                for (unsigned k = 0; k <= ZKEY_MAX_LOG_DOMAIN; k++)
                    gpu_ntt_free(p->ntt[l][c][k]);
    }
    free(p); /* the fallback is its opener's to close (select.c) */
    be->priv = NULL;
}

/* the zkey row; the bellperson row is cuda_bellperson_row.c's */
static const struct backend_format cuda_zkey_format = {
    .prove_start = cuda_prove_start,
    .prove_finish = cuda_prove_finish,
    .job_done = cuda_job_done,
    .reprove = cuda_reprove,
    .key_check = cuda_key_check,
    .key_drop = cuda_key_drop,
};

const struct backend_ops cuda_backend_ops = {
    .name = "cuda",
    .workers = 2,
    .workers_now = cuda_workers_now,
    .device_errors = 1,
    .open = cuda_open,
    .format = {
        [CTL_KEY_ZKEY] = &cuda_zkey_format,
        [CTL_KEY_BELLPERSON] = &cuda_bellperson_format,
    },
    .lost = cuda_lost,
    .status = cuda_status,
    .device_memory = cuda_device_memory,
    .host_memory = cuda_host_memory,
    .close = cuda_close,
};
