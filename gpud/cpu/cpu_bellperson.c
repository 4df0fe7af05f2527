/* cpu_bellperson.c — the CPU backend's bellperson row (see cpu_bellperson.h). */
#include "cpu_bellperson.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_key.h"
#include "bellperson_proof.h"
#include "bellperson_prove.h"
#include "payload.h"

struct cpu_bp_job {
    uint8_t *abc; /* a, b, then room for c: domain size × 32 B each */
    uint8_t *wit; /* n_vars × 32 B, standard form */
};

static void job_free(struct cpu_bp_job *j)
{
    if (!j)
        return;
    free(j->abc);
    free(j->wit);
    free(j);
}

static int row_start(struct backend *be, const struct child_key *k, const struct prove_input *in,
                    void **job, struct sp_err *e)
{
    (void)be;
    const struct key_shape *zk = &k->shape;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    struct cpu_bp_job *j = calloc(1, sizeof *j);
    if (j) {
        j->abc = aligned_alloc(64, (size_t)(3 * pl.vec_bytes));
        j->wit = malloc((size_t)pl.witness_bytes);
    }
    if (!j || !j->abc || !j->wit) {
        job_free(j);
        return sp_fail(e, -ENOMEM, "gpud: out of memory for a 2^%u bellperson partition",
                       zk->log_domain);
    }
    memcpy(j->abc, in->a, (size_t)pl.vec_bytes);
    memcpy(j->abc + pl.vec_bytes, in->b, (size_t)pl.vec_bytes);
    memcpy(j->wit, in->witness, (size_t)pl.witness_bytes);
    *job = j;
    return 0;
}

static int row_finish(struct backend *be, const struct child_key *k, void *job,
                     struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    (void)t;
    struct cpu_bp_job *j = job;
    const struct bellperson_key *bk = k->prover_key;
    bls12381_fr_t *a = (bls12381_fr_t *)j->abc;
    size_t n = k->shape.domain_size;
    bls12381_g1_affine_t A, C;
    bls12381_g2_affine_t B;
    int rc = bp_prove_abc(&bk->key, &k->pce, j->wit, a, a + n, a + 2 * n, &A, &B, &C,
                          be->nthreads, e);
    if (rc == 0)
        bp_proof_to_groth16(out, &A, &B, &C);
    job_free(j);
    return rc;
}

const struct backend_format cpu_bellperson_format = {
    .prove_start = row_start,
    .prove_finish = row_finish,
};
