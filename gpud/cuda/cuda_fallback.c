/* cuda_fallback.c — CUDA partitions proved on the fallback backend (see
 * cuda_fallback.h). */
#include "cuda_fallback.h"

#include <errno.h>
#include <stdlib.h>

#include "cuda_lost.h"
#include "gpu_prove.h"
#include "payload.h"

int cuda_fallback_start(struct cuda_priv *p, const struct child_key *k,
                        const struct prove_input *in, void **job, struct sp_err *e)
{
    const struct backend_format *f = backend_format(p->fb, k);
    if (!f)
        return sp_fail(e, -SP_EUNSUPPORTED, "%s: the %s backend proves no key of this format",
                       k->name, p->fb->ops->name);
    return f->prove_start(p->fb, k, in, job, e);
}

int cuda_fallback_finish(struct backend *be, const struct child_key *k, void *job,
                         struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    struct cuda_priv *p = be->priv;
    const struct backend_format *f = backend_format(p->fb, k);
    p->fb->progress = be->progress;
    p->fb->progress_arg = be->progress_arg;
    int rc = f->prove_finish(p->fb, k, job, out, t, e);
    if (rc == 0 && f->job_done) /* the fallback's proof is final: nothing kept */
        f->job_done(p->fb, job);
    return rc;
}

int cuda_fallback_host(struct backend *be, const struct child_key *k,
                       const struct prove_input *in, struct groth16_proof *out,
                       struct stage_times *t, struct sp_err *e)
{
    void *cj = NULL;
    int rc = cuda_fallback_start(be->priv, k, in, &cj, e);
    return rc < 0 ? rc : cuda_fallback_finish(be, k, cj, out, t, e);
}

/* Downloads the kept inputs and proves them on the CPU. */
int cuda_cpu_from_device(struct backend *be, const struct child_key *k, struct cuda_job *j,
                         struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
    const struct zkey *zk = &k->zk;
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
        rc = cuda_fallback_start(be->priv, k, &in, &cj, e);
    }
    free(a), free(b), free(w);
    if (rc == 0)
        rc = cuda_fallback_finish(be, k, cj, out, t, e);
    return rc;
}
