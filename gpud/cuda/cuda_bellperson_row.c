/* cuda_bellperson_row.c — the CUDA backend's bellperson row (see
 * cuda_bellperson_row.h). */
#include "cuda_bellperson_row.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_key.h"
#include "bellperson_proof.h"
#include "cuda_bellperson.h"
#include "cuda_fallback.h"
#include "cuda_lost.h"
#include "log_stamp.h"
#include "cuda_priv.h"
#include "payload.h"

struct cuda_bp_job {
    uint8_t *ab;     /* a, b: domain size × 32 B each, the slot's form */
    uint8_t *wit;    /* n_vars × 32 B, standard form */
    void *cpu_job;   /* set when the partition is proved on the fallback */
    int on_fallback; /* it was: a re-prove has nothing other to try */
};

static void job_free(struct cuda_bp_job *j)
{
    if (!j)
        return;
    free(j->ab);
    free(j->wit);
    free(j);
}

/* the kept inputs as a slot's views */
static struct prove_input kept(const struct child_key *k, const struct cuda_bp_job *j)
{
    struct payload_layout pl = payload_layout(k->shape.domain_size, k->shape.n_vars);
    return (struct prove_input){ j->ab, j->ab + pl.vec_bytes, j->wit };
}

static int row_start(struct backend *be, const struct child_key *k, const struct prove_input *in,
                    void **job, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct bellperson_key *bk = k->prover_key;
    const struct key_shape *zk = &k->shape;
    if (cuda_is_lost())
        return sp_fail(e, -EIO, "gpu: the CUDA context was lost earlier; gpud restarts");
    struct cuda_bp_job *j = calloc(1, sizeof *j);
    if (!j)
        return sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    int rc = cuda_bp_ready((struct cuda_bp_engine **)&bk->engine, &bk->key, &k->pce, e);
    if (rc < 0) {
        if (!p->fallback) { /* --backend cuda: no CPU behind it */
            job_free(j);
            return rc;
        }
        diag(LOG_WARN, "gpud: %s; this partition is proved on the CPU", e->msg);
        e->msg[0] = 0;
        if ((rc = cuda_fallback_start(p, k, in, &j->cpu_job, e)) < 0) {
            job_free(j);
            return rc;
        }
        *job = j;
        return 0;
    }
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    j->ab = aligned_alloc(64, (size_t)(2 * pl.vec_bytes));
    j->wit = malloc((size_t)pl.witness_bytes);
    if (!j->ab || !j->wit) {
        job_free(j);
        return sp_fail(e, -ENOMEM, "gpud: out of memory for a 2^%u bellperson partition",
                       zk->log_domain);
    }
    memcpy(j->ab, in->a, (size_t)pl.vec_bytes);
    memcpy(j->ab + pl.vec_bytes, in->b, (size_t)pl.vec_bytes);
    memcpy(j->wit, in->witness, (size_t)pl.witness_bytes);
    *job = j;
    return 0;
}

static int row_finish(struct backend *be, const struct child_key *k, void *job,
                     struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct cuda_bp_job *j = job;
    struct bellperson_key *bk = k->prover_key;
    int rc;
    if (j->cpu_job) {
        rc = cuda_fallback_finish(be, k, j->cpu_job, out, t, e);
        j->cpu_job = NULL; /* the fallback freed it */
        j->on_fallback = 1;
        if (rc < 0)
            job_free(j);
        return rc;
    }
    struct prove_input in = kept(k, j);
    bls12381_g1_affine_t A, C;
    bls12381_g2_affine_t B;
    rc = cuda_bp_prove((struct cuda_bp_engine **)&bk->engine, &bk->key, &k->pce, in.witness,
                       (const bls12381_fr_t *)in.a, (const bls12381_fr_t *)in.b, &A, &B, &C,
                       be->nthreads, e);
    if (rc == 0) {
        bp_proof_to_groth16(out, &A, &B, &C);
        return 0; /* the inputs kept until job_done or reprove */
    }
    if (p->fallback) {
        diag(LOG_WARN, "gpud: %s; this partition is proved on the CPU", e->msg);
        e->msg[0] = 0;
        rc = cuda_fallback_host(be, k, &in, out, t, e);
        j->on_fallback = rc == 0;
    }
    if (rc < 0)
        job_free(j);
    return rc;
}

static int row_reprove(struct backend *be, const struct child_key *k, void *job,
                      struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_bp_job *j = job;
    if (j->on_fallback) /* the fallback proved it: its check's verdict stands */
        return 1;
    struct prove_input in = kept(k, j);
    return cuda_fallback_host(be, k, &in, out, t, e);
}

static void row_job_done(struct backend *be, void *job)
{
    (void)be;
    job_free(job);
}

static void row_key_drop(struct backend *be, const struct child_key *k)
{
    (void)be;
    struct bellperson_key *bk = k->prover_key;
    if (bk && bk->engine) {
        cuda_bp_free(bk->engine);
        bk->engine = NULL;
    }
}

const struct backend_format cuda_bellperson_format = {
    .prove_start = row_start,
    .prove_finish = row_finish,
    .job_done = row_job_done,
    .reprove = row_reprove,
    .key_drop = row_key_drop,
};
