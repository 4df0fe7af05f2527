/* backend.c — backend selection (see backend.h). */
#include "backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int backend_cuda_built(void)
{
#ifdef SLOTPROVE_CUDA
    return 1;
#else
    return 0;
#endif
}

static int open_cpu(struct backend *be, struct sp_err *e)
{
    be->ops = &cpu_backend_ops;
    int rc = be->ops->open(be, e);
    if (rc == 0)
        snprintf(be->description, sizeof(be->description), "cpu: %u threads", be->nthreads);
    return rc;
}

int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e)
{
    memset(be, 0, sizeof(*be));
    be->nthreads = nthreads;
    if (strcmp(name, "cpu") == 0)
        return open_cpu(be, e);
    if (strcmp(name, "cuda") == 0 || strcmp(name, "auto") == 0) {
#ifdef SLOTPROVE_CUDA
        be->ops = &cuda_backend_ops;
        int rc = be->ops->open(be, e);
        if (rc == 0) {
            cuda_backend_set_fallback(be, strcmp(name, "auto") == 0);
            return 0;
        }
        if (strcmp(name, "cuda") == 0) {
            char why[SP_ERR_MSG];
            snprintf(why, sizeof(why), "%s", e->msg); /* not formatted into itself */
            return sp_fail(e, -ENODEV, "backend cuda: %.400s", why);
        }
        memset(be, 0, sizeof(*be));
        be->nthreads = nthreads;
#else
        if (strcmp(name, "cuda") == 0)
            return sp_fail(e, -ENODEV,
                           "backend cuda: this gpud was built without CUDA (nvcc was not found at build time)");
#endif
        return open_cpu(be, e);
    }
    return sp_fail(e, -ENOENT, "unknown backend \"%s\" (expected auto, cpu or cuda)", name);
}
