/* cuda_bellperson.c — see cuda_bellperson.h. */
#include "cuda_bellperson.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_assemble.h"
#include "bellperson_ntt.h"
#include "cuda_budget.h"
#include "gpu_bellperson.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "gpu_prove.h"
#include "log_stamp.h"

struct cuda_bp_engine {
    struct gpu_msm *g1, *g2;
    int stream, lean; /* the plan's (cuda_budget.h) */
    size_t chunk;
    const void *registered[5]; /* host arrays page-locked for streaming */
    size_t reg_bytes[5];
};

static pthread_mutex_t bp_lock = PTHREAD_MUTEX_INITIALIZER;

void cuda_bp_free(struct cuda_bp_engine *eng)
{
    if (!eng)
        return;
    gpu_msm_free(eng->g1);
    gpu_msm_free(eng->g2);
    for (int i = 0; i < 5; i++)
        if (eng->registered[i])
            gpu_mem_unregister((void *)eng->registered[i]);
    free(eng);
}

/* The key's shape for the planner (cuda_budget.h): the G1 engine over h,
 * l, a, b_g1, the G2 engine over b_g2; one worker (a lock); its buffers:
 * the quotient's three vectors (gpu_bp_quotient) and the engines'
 * host-scalar buffers (l's, a's and b's scalars come from host memory:
 * the G1 engine's as large as its largest such run, the G2 engine's b's),
 * the full or the compact NTT domain. */
static void bp_shape(const struct bp_key *k, unsigned log_n, struct cuda_shape *s)
{
    const uint32_t *cnt = k->params.count;
    size_t host1 = cnt[BP_L] > cnt[BP_A] ? cnt[BP_L] : cnt[BP_A];
    host1 = host1 > cnt[BP_B_G1] ? host1 : cnt[BP_B_G1];
    *s = (struct cuda_shape){ 0 };
    s->g1 = GPU_BLS12381_G1;
    s->g2 = GPU_BLS12381_G2;
    s->g1n[0] = cnt[BP_H], s->g1n[1] = cnt[BP_L], s->g1n[2] = cnt[BP_A], s->g1n[3] = cnt[BP_B_G1];
    s->g2n = cnt[BP_B_G2];
    for (int lean = 0; lean <= 1; lean++) {
        s->ntt[lean] = gpu_ntt_plan(log_n, lean);
        s->vec[lean] = gpu_bp_quotient_plan(log_n, lean) - s->ntt[lean] +
                       gpu_mem_charge(host1 * 32) + gpu_mem_charge((size_t)cnt[BP_B_G2] * 32);
    }
    s->max_sets = 1;
}

static int make_engine(struct cuda_bp_engine **ret, const struct bp_key *k, unsigned log_n,
                       struct sp_err *e)
{
    const uint32_t *cnt = k->params.count;
    const void *g1[4] = { k->h, k->l, k->a, k->b_g1 };
    size_t g1n[4] = { cnt[BP_H], cnt[BP_L], cnt[BP_A], cnt[BP_B_G1] };
    const void *g2[1] = { k->b_g2 };
    size_t g2n[1] = { cnt[BP_B_G2] };
    size_t left = gpu_mem_left();
    struct cuda_shape sh;
    struct cuda_plan pl;
    bp_shape(k, log_n, &sh);
    /* streamed, the five point arrays are page-locked: their ceilings
     * counted before the rest is sized (left already less what the ledger
     * holds, the slot pool's lock among it) */
    const void *arr[5] = { k->h, k->l, k->a, k->b_g1, k->b_g2 };
    size_t bytes[5] = { g1n[0] * 96, g1n[1] * 96, g1n[2] * 96, g1n[3] * 96, g2n[0] * 192 };
    for (int i = 0; i < 5; i++)
        sh.pinned_stream += gpu_mem_pin_ceiling(bytes[i]);
    int rc = cuda_plan_shape(&sh, k->params.path, left, &pl, e);
    if (rc < 0)
        return rc;
    struct cuda_bp_engine *eng = calloc(1, sizeof *eng);
    if (!eng)
        return sp_fail(e, -ENOMEM, "out of memory");
    eng->stream = pl.stream;
    eng->chunk = pl.chunk;
    eng->lean = pl.lean;
    if (eng->stream) {
        for (int i = 0; i < 5; i++) {
            struct sp_err re;
            if (bytes[i] && gpu_mem_register((void *)arr[i], bytes[i], "bellperson points", NULL, &re) == 0)
                eng->registered[i] = arr[i], eng->reg_bytes[i] = bytes[i];
        }
    }
    rc = gpu_msm_create_chunked(&eng->g1, GPU_BLS12381_G1, g1, g1n, 4, eng->chunk, eng->stream, e);
    if (rc == 0)
        rc = gpu_msm_create_chunked(&eng->g2, GPU_BLS12381_G2, g2, g2n, 1, eng->chunk,
                                    eng->stream, e);
    if (rc < 0) {
        cuda_bp_free(eng);
        return rc;
    }
    char parts[40] = "unbounded";
    if (pl.chunk)
        snprintf(parts, sizeof(parts), "of at most 2^%d points", __builtin_ctzl(pl.chunk));
    diag(LOG_NOTE, "gpud: bellperson key %s (2^%u domain) on the GPU: points %s, MSM parts %s, "
            "%s quotient, %.2f GiB planned (points %.2f, MSM %.2f, vectors %.2f, NTT %.2f, "
            "pinned %.2f) of %.2f GiB left", k->params.path, log_n,
            eng->stream ? "streamed from host memory" : "resident", parts,
            eng->lean ? "lean (in place, compact NTT domain)" : "fast", pl.total / 1073741824.0,
            pl.points / 1073741824.0, pl.msm / 1073741824.0, pl.vectors / 1073741824.0,
            pl.ntt / 1073741824.0, pl.pinned / 1073741824.0, left / 1073741824.0);
    *ret = eng;
    return 0;
}

/* h (device, n standard-form coefficients) from host a, b in the slot's
 * form (shm/payload.h: standard form; c = a∘b formed on the device, their
 * Montgomery product a·b·R^-1): the quotient comes out as h·R^-1, so the
 * monomial pass's scale (Montgomery form) is multiplied by R^2 — the
 * product with R^3 as plain limbs. */
static int quotient(unsigned log_n, int lean, const bls12381_fr_t *a, const bls12381_fr_t *b,
                    void **hd, struct sp_err *e)
{
    bls12381_fr_t scale, shift_inv, r3;
    bp_device_coset_constants(log_n, &scale, &shift_inv);
    bls12381_fr_mul(&r3, &bls12381_fr_r2, &bls12381_fr_r2); /* R³ */
    bls12381_fr_mul(&scale, &scale, &r3);
    return gpu_bp_quotient(log_n, lean, a, b, bp_row_map_factor(log_n), &scale, &shift_inv, hd, e);
}

int cuda_bp_quotient(unsigned log_n, int lean, const bls12381_fr_t *a, const bls12381_fr_t *b,
                     uint8_t *h, struct sp_err *e)
{
    void *hd = NULL;
    int rc = quotient(log_n, lean, a, b, &hd, e);
    if (rc == 0)
        rc = gpu_download(h, hd, ((size_t)32) << log_n, e);
    gpu_mem_free(hd);
    return rc;
}

int cuda_bp_ready(struct cuda_bp_engine **engp, const struct bp_key *k, const struct bp_pce *p,
                  struct sp_err *e)
{
    if (__atomic_load_n(engp, __ATOMIC_ACQUIRE))
        return 0;
    unsigned log_n;
    bp_pce_domain_size(p, &log_n);
    int rc = 0;
    pthread_mutex_lock(&bp_lock);
    if (!*engp) {
        struct cuda_bp_engine *eng = NULL;
        if ((rc = make_engine(&eng, k, log_n, e)) == 0)
            __atomic_store_n(engp, eng, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&bp_lock);
    return rc;
}

int cuda_bp_prove(struct cuda_bp_engine **engp, const struct bp_key *k, const struct bp_pce *p,
                  const uint8_t *w, const bls12381_fr_t *a, const bls12381_fr_t *b,
                  bls12381_g1_affine_t *A, bls12381_g2_affine_t *B, bls12381_g1_affine_t *C,
                  unsigned nthreads, struct sp_err *e)
{
    (void)nthreads;
    unsigned log_n;
    size_t n = bp_pce_domain_size(p, &log_n), nw = (size_t)p->num_inputs + p->num_aux;
    const uint32_t *cnt = k->params.count;
    uint8_t *sc = malloc(nw * 32 + 32);
    void *hd = NULL;
    int rc;
    if (!sc)
        return sp_fail(e, -ENOMEM, "out of memory for the MSM scalars");
    pthread_mutex_lock(&bp_lock);
    if (!*engp && (rc = make_engine(engp, k, log_n, e)) < 0)
        goto out;
    struct cuda_bp_engine *eng = *engp;
    if ((rc = quotient(log_n, eng->lean, a, b, &hd, e)) < 0)
        goto out;
    bls12381_g1_jac_t h, l, ma, mb1;
    bls12381_g2_jac_t mb2;
    size_t at_l = cnt[BP_H], at_a = at_l + cnt[BP_L], at_b = at_a + cnt[BP_A];
    if ((rc = gpu_msm_run_at(eng->g1, &h, 0, hd, n - 1, e)) < 0 ||
        (rc = gpu_msm_run_at(eng->g1, &l, at_l, w + 32 * (size_t)p->num_inputs, p->num_aux,
                             e)) < 0)
        goto out;
    size_t na = bp_gather(sc, w, p->num_inputs, p->num_aux, NULL, &p->a_aux);
    if ((rc = gpu_msm_run_at(eng->g1, &ma, at_a, sc, na, e)) < 0)
        goto out;
    size_t nb = bp_gather(sc, w, p->num_inputs, p->num_aux, &p->b_input, &p->b_aux);
    if ((rc = gpu_msm_run_at(eng->g1, &mb1, at_b, sc, nb, e)) < 0 ||
        (rc = gpu_msm_run_at(eng->g2, &mb2, 0, sc, nb, e)) < 0)
        goto out;
    rc = bp_assemble(k, &h, &l, &ma, &mb1, &mb2, A, B, C, e);
out:
    gpu_mem_free(hd);
    pthread_mutex_unlock(&bp_lock);
    free(sc);
    return rc;
}
