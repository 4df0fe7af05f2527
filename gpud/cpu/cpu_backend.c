/*
 * cpu_backend.c — the CPU prover backend (see backend.h), and its zkey row
 * (the bellperson row: cpu_bellperson.h).
 *
 * prove_start copies a, b and the witness off the slot into private
 * buffers, with a third for c = a∘b, formed when the proof runs (gpud
 * maps slots read-only, and the NTTs work in place), so the
 * slot can be released before the NTTs and MSMs run. NTT domains are built
 * once per (curve, size) and kept.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_bellperson.h"
#include "cpu_prove.h"
#include "payload.h"

struct cpu_job {
    void *a, *b, *c;  /* domain_size × 32 B, Montgomery */
    uint8_t *witness; /* n_vars × 32 B, standard */
};

struct cpu_priv {
    pthread_mutex_t lock;
    struct bn254_ntt_domain bn254[ZKEY_MAX_LOG_DOMAIN + 1];
    struct bls12381_ntt_domain bls12381[ZKEY_MAX_LOG_DOMAIN + 1];
};

static void job_free(struct cpu_job *j)
{
    if (!j)
        return;
    free(j->a);
    free(j->b);
    free(j->c);
    free(j->witness);
    free(j);
}

static int cpu_prove_start(struct backend *be, const struct child_key *k,
                           const struct prove_input *in, void **job, struct sp_err *e)
{
    (void)be;
    const struct zkey *zk = &k->zk;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    size_t vec = (size_t)pl.vec_bytes, wit = (size_t)pl.witness_bytes;
    struct cpu_job *j = calloc(1, sizeof(*j));
    if (!j)
        return sp_fail(e, -ENOMEM, "cpu backend: out of memory");
    j->a = aligned_alloc(64, vec);
    j->b = aligned_alloc(64, vec);
    j->c = aligned_alloc(64, vec);
    j->witness = aligned_alloc(64, (wit + 63) & ~(size_t)63);
    if (!j->a || !j->b || !j->c || !j->witness) {
        job_free(j);
        return sp_fail(e, -ENOMEM, "cpu backend: out of memory for %zu-byte vectors", vec);
    }
    memcpy(j->a, in->a, vec);
    memcpy(j->b, in->b, vec);
    /* c = a∘b is formed in j->c when the proof runs (prove_tmpl.h) */
    memcpy(j->witness, in->witness, wit);
    *job = j;
    return 0;
}

static int cpu_open(struct backend *be, struct sp_err *e)
{
    struct cpu_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return sp_fail(e, -ENOMEM, "cpu backend: out of memory");
    pthread_mutex_init(&p->lock, NULL);
    be->priv = p;
    snprintf(be->description, sizeof(be->description), "cpu: %u threads", be->nthreads);
    return 0;
}

static int cpu_prove_finish(struct backend *be, const struct child_key *key, void *job,
                            struct groth16_proof *out, struct stage_times *t,
                            struct sp_err *e)
{
    const struct zkey *zk = &key->zk;
    struct cpu_job *j = job;
    struct cpu_priv *p = be->priv;
    unsigned k = zk->log_domain;
    int rc = 0;

    pthread_mutex_lock(&p->lock);
    if (zk->curve == CURVE_BN254 && !p->bn254[k].roots)
        rc = bn254_ntt_domain_init(&p->bn254[k], k, be->nthreads);
    else if (zk->curve == CURVE_BLS12381 && !p->bls12381[k].roots)
        rc = bls12381_ntt_domain_init(&p->bls12381[k], k, be->nthreads);
    pthread_mutex_unlock(&p->lock);
    if (rc < 0) {
        job_free(j);
        return sp_fail(e, rc, "cpu backend: NTT domain 2^%u: %s", k, strerror(-rc));
    }
    if (zk->curve == CURVE_BN254)
        rc = bn254_cpu_prove(zk, j->a, j->b, j->c, j->witness, &p->bn254[k],
                             be->nthreads, be->progress, be->progress_arg, out, t, e);
    else
        rc = bls12381_cpu_prove(zk, j->a, j->b, j->c, j->witness, &p->bls12381[k],
                                be->nthreads, be->progress, be->progress_arg, out, t, e);
    job_free(j);
    return rc;
}

static void cpu_close(struct backend *be)
{
    struct cpu_priv *p = be->priv;
    if (!p)
        return;
    for (unsigned k = 0; k <= ZKEY_MAX_LOG_DOMAIN; k++) {
        bn254_ntt_domain_free(&p->bn254[k]);
        bls12381_ntt_domain_free(&p->bls12381[k]);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
    be->priv = NULL;
}

/* the zkey row; the bellperson row is cpu_bellperson.c's */
static const struct backend_format cpu_zkey_format = {
    .prove_start = cpu_prove_start,
    .prove_finish = cpu_prove_finish,
};

const struct backend_ops cpu_backend_ops = {
    .name = "cpu",
    .open = cpu_open,
    .format = {
        [CTL_KEY_ZKEY] = &cpu_zkey_format,
        [CTL_KEY_BELLPERSON] = &cpu_bellperson_format,
    },
    .close = cpu_close,
};
