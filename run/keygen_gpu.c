/* keygen_gpu.c — keygen's point sections on the GPU (keygen.h
 * keygen_gpu_*), through the kernels of gpud/cuda/kernels/gpu.h (gpu_fb_*), when
 * slotprove was built with CUDA; without it every call says so. */
#include "keygen.h"

#include <errno.h>
#include <stdlib.h>

#ifdef SLOTPROVE_CUDA_BUILT
#include "fault_point.h"
#include "gpu.h"

struct keygen_gpu {
    struct gpu_fb *g1, *g2;
};

int keygen_gpu_probe(char *desc, size_t len, struct sp_err *e)
{
    return gpu_describe(desc, len, e);
}

int keygen_gpu_budget(uint64_t bytes, struct sp_err *e)
{
    return gpu_mem_set_budget((size_t)bytes, e) ? 0 : -ENOMEM;
}

int keygen_gpu_open(struct keygen_gpu **ret, enum curve_id curve, const void *t1, unsigned w1,
                    const void *t2, unsigned w2, size_t max_batch, struct sp_err *e)
{
    *ret = NULL;
    struct keygen_gpu *g = calloc(1, sizeof(*g));
    if (!g)
        return sp_fail(e, -ENOMEM, "out of memory");
    int bn = curve == CURVE_BN254, rc;
    if ((rc = gpu_fb_create(&g->g1, bn ? GPU_BN254_G1 : GPU_BLS12381_G1, t1, w1, max_batch,
                            e)) < 0 ||
        (rc = gpu_fb_create(&g->g2, bn ? GPU_BN254_G2 : GPU_BLS12381_G2, t2, w2, max_batch,
                            e)) < 0) {
        keygen_gpu_close(g);
        return rc;
    }
    *ret = g;
    return 0;
}

int keygen_gpu_mul(struct keygen_gpu *g, int g2, void *out, const uint64_t (*k)[4], size_t n,
                   struct sp_err *e)
{
    /* The fault tests (tests/gpu_session.sh, stage keygen) lose the GPU
     * context here, with SLOTPROVE_FAULT_MATCH choosing the group ("g1",
     * "g2"), as a crashed kernel would: every later call fails too. */
    int rc;
    if (fault_point("keygen-gpu-trap", g2 ? "g2" : "g1") && (rc = gpu_inject_fault(1, e)) < 0)
        return rc;
    return gpu_fb_mul_batch(g2 ? g->g2 : g->g1, out, k, n, e);
}

void keygen_gpu_close(struct keygen_gpu *g)
{
    if (!g)
        return;
    gpu_fb_free(g->g1);
    gpu_fb_free(g->g2);
    free(g);
}

#else

int keygen_gpu_probe(char *desc, size_t len, struct sp_err *e)
{
    (void)desc;
    (void)len;
    return sp_fail(e, -ENODEV, "this build has no CUDA backend (nvcc was not found when it was built)");
}

int keygen_gpu_budget(uint64_t bytes, struct sp_err *e)
{
    (void)bytes;
    return sp_fail(e, -ENODEV, "this build has no CUDA backend (nvcc was not found when it was built)");
}

int keygen_gpu_open(struct keygen_gpu **ret, enum curve_id curve, const void *t1, unsigned w1,
                    const void *t2, unsigned w2, size_t max_batch, struct sp_err *e)
{
    (void)curve, (void)t1, (void)w1, (void)t2, (void)w2, (void)max_batch;
    *ret = NULL;
    return keygen_gpu_probe(NULL, 0, e);
}

int keygen_gpu_mul(struct keygen_gpu *g, int g2, void *out, const uint64_t (*k)[4], size_t n,
                   struct sp_err *e)
{
    (void)g, (void)g2, (void)out, (void)k, (void)n;
    return keygen_gpu_probe(NULL, 0, e);
}

void keygen_gpu_close(struct keygen_gpu *g)
{
    (void)g;
}

#endif
