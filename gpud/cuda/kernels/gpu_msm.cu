/* gpu_msm.cu — the C entry points of the GPU MSM (gpu_msm.h), dispatching to
 * the per-group instances of msm.cuh. */
#include "gpu_msm.h"
#include "msm.cuh"

#define MSM_FACTORY(GROUP)                                                                 \
    msm_engine_base *gpu_msm_new_##GROUP(const void *const *, const size_t *, unsigned, size_t, \
                                         bool, struct sp_err *, int *);                     \
    size_t gpu_msm_plan_##GROUP(const size_t *, unsigned, size_t, bool, struct sp_err *);      \
    size_t gpu_msm_points_##GROUP(const size_t *, unsigned);                                \
    size_t gpu_msm_local_##GROUP(void);
MSM_FACTORY(bn254_g1)
MSM_FACTORY(bn254_g2)
MSM_FACTORY(bls12381_g1)
MSM_FACTORY(bls12381_g2)

struct gpu_msm {
    msm_engine_base *eng;
};

extern "C" int gpu_msm_create(struct gpu_msm **ret, enum gpu_group g, const void *points,
                              size_t n_max, struct sp_err *e)
{
    return gpu_msm_create_arrays(ret, g, &points, &n_max, 1, e);
}

extern "C" int gpu_msm_create_arrays(struct gpu_msm **ret, enum gpu_group g,
                                     const void *const *arrays, const size_t *counts, unsigned k,
                                     struct sp_err *e)
{
    return gpu_msm_create_chunked(ret, g, arrays, counts, k, 0, 0, e);
}

extern "C" size_t gpu_msm_plan(enum gpu_group g, const size_t *sizes, unsigned k, size_t chunk,
                               int stream, struct sp_err *e)
{
    switch (g) {
    case GPU_BN254_G1: return gpu_msm_plan_bn254_g1(sizes, k, chunk, stream, e);
    case GPU_BN254_G2: return gpu_msm_plan_bn254_g2(sizes, k, chunk, stream, e);
    case GPU_BLS12381_G1: return gpu_msm_plan_bls12381_g1(sizes, k, chunk, stream, e);
    case GPU_BLS12381_G2: return gpu_msm_plan_bls12381_g2(sizes, k, chunk, stream, e);
    default: sp_fail(e, -EINVAL, "gpu msm: unknown group %d", (int)g); return 0;
    }
}

extern "C" size_t gpu_msm_plan_points(enum gpu_group g, const size_t *sizes, unsigned k)
{
    switch (g) {
    case GPU_BN254_G1: return gpu_msm_points_bn254_g1(sizes, k);
    case GPU_BN254_G2: return gpu_msm_points_bn254_g2(sizes, k);
    case GPU_BLS12381_G1: return gpu_msm_points_bls12381_g1(sizes, k);
    case GPU_BLS12381_G2: return gpu_msm_points_bls12381_g2(sizes, k);
    default: return 0;
    }
}

extern "C" size_t gpu_msm_local_bytes(void)
{
    size_t v[4] = { gpu_msm_local_bn254_g1(), gpu_msm_local_bn254_g2(), gpu_msm_local_bls12381_g1(),
                    gpu_msm_local_bls12381_g2() },
           mx = 0;
    for (int i = 0; i < 4; i++)
        mx = v[i] > mx ? v[i] : mx;
    return mx;
}

extern "C" size_t gpu_msm_device_bytes(const struct gpu_msm *m)
{
    return m ? m->eng->held() : 0;
}

extern "C" int gpu_msm_create_chunked(struct gpu_msm **ret, enum gpu_group g,
                                      const void *const *arrays, const size_t *counts, unsigned k,
                                      size_t chunk, int stream, struct sp_err *e)
{
    int rc = 0;
    msm_engine_base *eng;
    size_t n = 0;
    *ret = nullptr;
    for (unsigned i = 0; i < k; i++)
        n += counts[i];
    if (k == 0 || n == 0 || n > ((size_t)1 << 30))
        return sp_fail(e, -EINVAL, "gpu msm: %zu points in %u arrays (1 to 2^30)", n, k);
    switch (g) {
    case GPU_BN254_G1: eng = gpu_msm_new_bn254_g1(arrays, counts, k, chunk, stream != 0, e, &rc); break;
    case GPU_BN254_G2: eng = gpu_msm_new_bn254_g2(arrays, counts, k, chunk, stream != 0, e, &rc); break;
    case GPU_BLS12381_G1: eng = gpu_msm_new_bls12381_g1(arrays, counts, k, chunk, stream != 0, e, &rc); break;
    case GPU_BLS12381_G2: eng = gpu_msm_new_bls12381_g2(arrays, counts, k, chunk, stream != 0, e, &rc); break;
    default: return sp_fail(e, -EINVAL, "gpu msm: unknown group %d", (int)g);
    }
    if (!eng)
        return rc;
    *ret = new (std::nothrow) gpu_msm{ eng };
    if (!*ret) {
        delete eng;
        return sp_fail(e, -ENOMEM, "gpu msm: out of host memory");
    }
    return 0;
}

extern "C" void gpu_msm_free(struct gpu_msm *m)
{
    if (!m)
        return;
    delete m->eng;
    delete m;
}

extern "C" int gpu_msm_run(struct gpu_msm *m, void *ret, const void *scalars, size_t n,
                           unsigned window_bits, struct sp_err *e)
{
    return m->eng->run(ret, 0, scalars, n, window_bits, e);
}

extern "C" int gpu_msm_run_at(struct gpu_msm *m, void *ret, size_t at, const void *scalars,
                              size_t n, struct sp_err *e)
{
    return m->eng->run(ret, at, scalars, n, 0, e);
}

extern "C" unsigned gpu_msm_window_bits(enum gpu_group g, size_t n)
{
    return msm_choose_window(g, n);
}
