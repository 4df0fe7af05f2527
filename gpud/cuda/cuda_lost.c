/* cuda_lost.c — the CUDA context's sticky-error flag (see cuda_lost.h). */
#include "cuda_lost.h"

#include <errno.h>

#include "gpu_prove.h"

static int lost;

int cuda_gpu_failed(int rc)
{
    if (rc == -EIO && gpu_context_lost())
        lost = 1;
    return rc;
}

int cuda_is_lost(void)
{
    return lost;
}
