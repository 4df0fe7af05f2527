/* select.c — backend selection (see select.h). */
#include "select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#ifdef SLOTPROVE_CUDA
#include "cuda_backend.h"
#endif

static size_t device_mem; /* backend_set_device_mem */
static unsigned device_share;

void backend_set_device_mem(size_t bytes, unsigned share)
{
    device_mem = bytes;
    device_share = share;
}

static int open_ops(struct backend *be, const struct backend_ops *ops, unsigned nthreads,
                    struct sp_err *e)
{
    memset(be, 0, sizeof(*be));
    be->nthreads = nthreads;
    be->ops = ops;
    return ops->open(be, e);
}

#ifdef SLOTPROVE_CUDA
/* The CUDA backend with an open CPU backend as its fallback. */
static int open_cuda(struct backend *be, int fallback_on_fault, unsigned nthreads,
                     struct sp_err *e)
{
    struct backend *cpu = calloc(1, sizeof(*cpu));
    if (!cpu)
        return sp_fail(e, -ENOMEM, "gpud: out of memory");
    int rc = open_ops(cpu, &cpu_backend_ops, nthreads, e);
    if (rc < 0) {
        free(cpu);
        return rc;
    }
    memset(be, 0, sizeof(*be));
    be->nthreads = nthreads;
    be->ops = &cuda_backend_ops;
    be->fallback = cpu;
    be->fallback_on_fault = fallback_on_fault;
    be->device_mem = device_mem;
    be->device_share = device_share > 1 ? device_share : 1;
    if ((rc = be->ops->open(be, e)) < 0) {
        cpu->ops->close(cpu);
        free(cpu);
        memset(be, 0, sizeof(*be));
    }
    return rc;
}
#endif

int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e)
{
    int is_cuda = strcmp(name, "cuda") == 0, is_auto = strcmp(name, "auto") == 0;
    if (!is_cuda && !is_auto && strcmp(name, "cpu") != 0)
        return sp_fail(e, -ENOENT, "unknown backend \"%s\" (expected auto, cpu or cuda)", name);
    if (is_cuda || is_auto) {
#ifdef SLOTPROVE_CUDA
        int rc = open_cuda(be, is_auto, nthreads, e);
        if (rc == 0)
            return 0;
        if (is_cuda) {
            char why[SP_ERR_MSG];
            snprintf(why, sizeof(why), "%s", e->msg); /* not formatted into itself */
            return sp_fail(e, -ENODEV, "backend cuda: %.400s", why);
        }
#else
        if (is_cuda)
            return sp_fail(e, -ENODEV,
                           "backend cuda: this gpud was built without CUDA (nvcc was not found at build time)");
#endif
    }
    return open_ops(be, &cpu_backend_ops, nthreads, e);
}

void backend_close(struct backend *be)
{
    struct backend *fb = be->fallback;
    be->ops->close(be);
    if (fb) {
        fb->ops->close(fb);
        free(fb);
    }
    be->fallback = NULL;
}
