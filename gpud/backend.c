/* backend.c — backend selection (see backend.h). */
#include "backend.h"

#include <errno.h>
#include <string.h>

int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e)
{
    memset(be, 0, sizeof(*be));
    be->nthreads = nthreads;
    if (strcmp(name, "cpu") == 0 || strcmp(name, "auto") == 0) {
        be->ops = &cpu_backend_ops;
        return be->ops->open(be, e);
    }
    if (strcmp(name, "cuda") == 0)
        return sp_fail(e, -ENOENT, "backend cuda: not built into this gpud (no CUDA backend yet)");
    return sp_fail(e, -ENOENT, "unknown backend \"%s\" (expected auto, cpu or cuda)", name);
}
