/* cuda_fallback.c — CUDA partitions proved on the fallback backend (see
 * cuda_fallback.h). */
#include "cuda_fallback.h"

#include <errno.h>
#include <stdlib.h>

#include "cuda_lost.h"
#include "gpu_prove.h"
#include "payload.h"

int cuda_cpu_start(struct cuda_priv *p, struct cuda_job *j, const struct zkey *zk,
                     const struct prove_input *in, struct sp_err *e)
{
    return p->fb->ops->prove_start(p->fb, zk, in, &j->cpu_job, e);
}

/* Downloads the kept inputs and proves them on the CPU. */
int cuda_cpu_from_device(struct backend *be, const struct zkey *zk, struct cuda_job *j,
                           struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    size_t vec = (size_t)pl.vec_bytes, wit = (size_t)pl.witness_bytes;
    uint8_t *a = malloc(vec), *b = malloc(vec), *w = malloc(wit);
    int rc = (a && b && w) ? 0 : sp_fail(e, -ENOMEM, "cuda backend: out of host memory");
    if (rc == 0 && ((rc = gpu_download(a, j->set->a, vec, e)) < 0 ||
                    (rc = gpu_download(b, j->set->b, vec, e)) < 0 ||
                    (rc = gpu_download(w, j->set->w, wit, e)) < 0))
        cuda_gpu_failed(rc);
    void *cj = NULL;
    if (rc == 0) {
        struct prove_input in = { a, b, w };
        p->fb->progress = be->progress;
        p->fb->progress_arg = be->progress_arg;
        rc = p->fb->ops->prove_start(p->fb, zk, &in, &cj, e);
    }
    free(a), free(b), free(w);
    if (rc == 0)
        rc = p->fb->ops->prove_finish(p->fb, zk, cj, out, t, e);
    return rc;
}
