/* cuda_bellperson.c — see cuda_bellperson.h. */
#include "cuda_bellperson.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_ntt.h"
#include "gpu_bellperson.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_prove.h"

struct cuda_bp_engine {
    struct gpu_msm *g1, *g2;
    int stream;
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
            gpu_host_unregister((void *)eng->registered[i]);
    free(eng);
}

/* Device bytes of the quotient's working set: three vectors and the NTT's
 * tables (gpu_ntt_create: about two vectors). */
static size_t quotient_bytes(size_t n)
{
    return 5 * n * 32;
}

static int make_engine(struct cuda_bp_engine **ret, const struct bp_key *k, size_t n,
                       struct sp_err *e)
{
    const uint32_t *cnt = k->params.count;
    const void *g1[4] = { k->h, k->l, k->a, k->b_g1 };
    size_t g1n[4] = { cnt[BP_H], cnt[BP_L], cnt[BP_A], cnt[BP_B_G1] };
    const void *g2[1] = { k->b_g2 };
    size_t g2n[1] = { cnt[BP_B_G2] };
    size_t pts = (g1n[0] + g1n[1] + g1n[2] + g1n[3]) * sizeof(bls12381_g1_affine_t) +
                 g2n[0] * sizeof(bls12381_g2_affine_t);
    size_t left = gpu_mem_left(), q = quotient_bytes(n);
    static const size_t chunks[] = { 0, (size_t)1 << 24, (size_t)1 << 22, (size_t)1 << 20,
                                     (size_t)1 << 18, (size_t)1 << 16 };
    struct cuda_bp_engine *eng = calloc(1, sizeof *eng);
    if (!eng)
        return sp_fail(e, -ENOMEM, "out of memory");
    size_t need = 0;
    int found = 0;
    /* resident points first, then streamed in smaller and smaller parts */
    for (int stream = 0; stream <= 1 && !found; stream++)
        for (unsigned i = stream ? 1 : 0; i < sizeof chunks / sizeof chunks[0]; i++) {
            size_t m1 = gpu_msm_plan(GPU_BLS12381_G1, g1n, 4, chunks[i], stream, e);
            size_t m2 = gpu_msm_plan(GPU_BLS12381_G2, g2n, 1, chunks[i], stream, e);
            if (!m1 || !m2) {
                free(eng);
                return -EIO;
            }
            need = m1 + m2 + q + (stream ? 0 : pts);
            if (need <= left) {
                eng->stream = stream;
                eng->chunk = chunks[i];
                found = 1;
                break;
            }
            if (!stream)
                break; /* resident: only without a chunk limit */
        }
    if (!found) {
        free(eng);
        return sp_fail(e, -E2BIG, "bellperson key %s: a 2^%u domain needs at least %.2f GiB of "
                       "device memory (points streamed), %.2f GiB of the budget are left",
                       k->params.path, (unsigned)__builtin_ctzll(n), need / 1073741824.0,
                       left / 1073741824.0);
    }
    if (eng->stream) {
        const void *arr[5] = { k->h, k->l, k->a, k->b_g1, k->b_g2 };
        size_t bytes[5] = { g1n[0] * 96, g1n[1] * 96, g1n[2] * 96, g1n[3] * 96, g2n[0] * 192 };
        for (int i = 0; i < 5; i++) {
            struct sp_err re;
            if (bytes[i] && gpu_host_register((void *)arr[i], bytes[i], &re) == 0)
                eng->registered[i] = arr[i], eng->reg_bytes[i] = bytes[i];
        }
    }
    int rc = gpu_msm_create_chunked(&eng->g1, GPU_BLS12381_G1, g1, g1n, 4, eng->chunk,
                                    eng->stream, e);
    if (rc == 0)
        rc = gpu_msm_create_chunked(&eng->g2, GPU_BLS12381_G2, g2, g2n, 1, eng->chunk,
                                    eng->stream, e);
    if (rc < 0) {
        cuda_bp_free(eng);
        return rc;
    }
    fprintf(stderr, "gpud: bellperson key %s on the GPU: points %s (%.2f GiB)%s, %.2f GiB "
            "planned of %.2f GiB left\n", k->params.path, eng->stream ? "streamed" : "resident",
            pts / 1073741824.0, eng->chunk ? " in parts" : "", need / 1073741824.0,
            left / 1073741824.0);
    *ret = eng;
    return 0;
}

/* h (device, n standard-form coefficients) from host a, b, c in the slot's
 * form (shm/payload.h): the quotient comes out as h·R^-3, so the monomial
 * pass's scale (Montgomery form) is multiplied by R^4 — the product with
 * R^5 as plain limbs. */
static int quotient(unsigned log_n, const bls12381_fr_t *a, const bls12381_fr_t *b,
                    const bls12381_fr_t *c, void **hd, struct sp_err *e)
{
    bls12381_fr_t scale, shift_inv, r5;
    bp_device_coset_constants(log_n, &scale, &shift_inv);
    bls12381_fr_mul(&r5, &bls12381_fr_r2, &bls12381_fr_r2); /* R³ */
    bls12381_fr_mul(&r5, &r5, &bls12381_fr_r2);             /* R⁴ */
    bls12381_fr_mul(&r5, &r5, &bls12381_fr_r2);             /* R⁵ */
    bls12381_fr_mul(&scale, &scale, &r5);
    return gpu_bp_quotient(log_n, a, b, c, bp_row_map_factor(log_n), &scale, &shift_inv, hd, e);
}

int cuda_bp_quotient(unsigned log_n, const bls12381_fr_t *a, const bls12381_fr_t *b,
                     const bls12381_fr_t *c, uint8_t *h, struct sp_err *e)
{
    void *hd = NULL;
    int rc = quotient(log_n, a, b, c, &hd, e);
    if (rc == 0)
        rc = gpu_download(h, hd, ((size_t)32) << log_n, e);
    gpu_mem_free(hd);
    return rc;
}

int cuda_bp_prove(struct cuda_bp_engine **engp, const struct bp_key *k, const struct bp_pce *p,
                  const uint8_t *w, const bls12381_fr_t *a, const bls12381_fr_t *b,
                  const bls12381_fr_t *c, bls12381_g1_affine_t *A, bls12381_g2_affine_t *B,
                  bls12381_g1_affine_t *C, unsigned nthreads, struct sp_err *e)
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
    if (!*engp && (rc = make_engine(engp, k, n, e)) < 0)
        goto out;
    struct cuda_bp_engine *eng = *engp;
    if ((rc = quotient(log_n, a, b, c, &hd, e)) < 0)
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
