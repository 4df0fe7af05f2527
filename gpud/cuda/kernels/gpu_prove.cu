/*
 * gpu_prove.cu — what the CUDA backend (gpud/cuda/cuda_backend.c) needs
 * besides the NTT and MSM: device memory, copies, the h stage of a proof,
 * the device's free memory, and a kernel fault to inject for the fault
 * tests (gpu_prove.h).
 */
#include <stdio.h>
#include <string.h>

#include "fields.cuh"
#include "gpu_prove.h"
#include "gpu_mem.h"
#include "gpu_ntt.h"
#include "gpu_util.cuh"

extern "C" int gpu_alloc(void **ret, size_t bytes, struct sp_err *e)
{
    return gpu_mem_alloc(ret, bytes, GPU_MEM_VECTORS, "vectors", e);
}

extern "C" void gpu_free(void *p)
{
    gpu_mem_free(p);
}

extern "C" int gpu_upload(void *dev, const void *host, size_t bytes, struct sp_err *e)
{
    CU_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread), e,
           "upload");
    CU_TRY(cudaStreamSynchronize(cudaStreamPerThread), e, "upload");
    return 0;
}

extern "C" int gpu_download(void *host, const void *dev, size_t bytes, struct sp_err *e)
{
    CU_TRY(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread), e,
           "download");
    CU_TRY(cudaStreamSynchronize(cudaStreamPerThread), e, "download");
    return 0;
}

extern "C" int gpu_copy(void *dst, const void *src, size_t bytes, struct sp_err *e)
{
    CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread), e,
           "device copy");
    return 0;
}

extern "C" int gpu_sync(struct sp_err *e)
{
    CU_TRY(cudaStreamSynchronize(cudaStreamPerThread), e, "kernels");
    CU_TRY(cudaGetLastError(), e, "kernels");
    return 0;
}

extern "C" int gpu_mem_info(size_t *free_bytes, size_t *total_bytes, struct sp_err *e)
{
    CU_TRY(cudaMemGetInfo(free_bytes, total_bytes), e, "memory info");
    return 0;
}

/* h_i = (a_i·b_i − c_i)·k·R^−1 (b NULL: a already holds a·b): the H MSM's
 * scalars in standard form (k = R^2 for the slot's form, shm/payload.h). */
template <class F>
__global__ void h_scalars(F *out, const F *a, const F *b, const F *c, F k, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    F ab = b ? a[i] * b[i] : a[i];
    out[i] = (ab - c[i]) * k;
}

template <class F> __global__ void fr_mul(F *out, const F *a, const F *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] * b[i];
}

extern "C" int gpu_fr_mul(enum gpu_curve curve, void *out, const void *a, const void *b, size_t n,
                          struct sp_err *e)
{
    unsigned nb = (unsigned)((n + 255) / 256);
    if (curve == GPU_BN254)
        fr_mul<bn254_fr_d><<<nb, 256>>>((bn254_fr_d *)out, (const bn254_fr_d *)a,
                                        (const bn254_fr_d *)b, n);
    else
        fr_mul<bls12381_fr_d><<<nb, 256>>>((bls12381_fr_d *)out, (const bls12381_fr_d *)a,
                                           (const bls12381_fr_d *)b, n);
    CU_TRY(cudaGetLastError(), e, "Fr multiply kernel");
    return 0;
}

extern "C" int gpu_h_scalars(enum gpu_curve curve, void *out, const void *a, const void *b,
                             const void *c, const void *k, size_t n, struct sp_err *e)
{
    unsigned nb = (unsigned)((n + 255) / 256);
    if (curve == GPU_BN254) {
        bn254_fr_d kd;
        memcpy(&kd, k, sizeof kd);
        h_scalars<bn254_fr_d><<<nb, 256>>>((bn254_fr_d *)out, (const bn254_fr_d *)a,
                                           (const bn254_fr_d *)b, (const bn254_fr_d *)c, kd, n);
    } else {
        bls12381_fr_d kd;
        memcpy(&kd, k, sizeof kd);
        h_scalars<bls12381_fr_d><<<nb, 256>>>((bls12381_fr_d *)out, (const bls12381_fr_d *)a,
                                              (const bls12381_fr_d *)b, (const bls12381_fr_d *)c,
                                              kd, n);
    }
    CU_TRY(cudaGetLastError(), e, "H scalars kernel");
    return 0;
}

extern "C" int gpu_h_stage(struct gpu_ntt *d, enum gpu_curve curve, const struct gpu_h_bufs *x,
                           const void *k, size_t n, void **out, struct sp_err *e)
{
    size_t vec = n * 32;
    int rc;
    if (!x->lean) {
        /* o1 = LDE(a)·LDE(b); s = a∘b = c; o2 = LDE(c); s = the H scalars;
         * a and b kept */
        if ((rc = gpu_copy(x->s, x->a, vec, e)) < 0 || (rc = gpu_ntt_coset_lde(d, x->o1, x->s, e)) < 0 ||
            (rc = gpu_copy(x->s, x->b, vec, e)) < 0 || (rc = gpu_ntt_coset_lde(d, x->o2, x->s, e)) < 0 ||
            (rc = gpu_fr_mul(curve, x->o1, x->o1, x->o2, n, e)) < 0 ||
            (rc = gpu_fr_mul(curve, x->s, x->a, x->b, n, e)) < 0 ||
            (rc = gpu_ntt_coset_lde(d, x->o2, x->s, e)) < 0 ||
            (rc = gpu_h_scalars(curve, x->s, x->o1, NULL, x->o2, k, n, e)) < 0 || (rc = gpu_sync(e)) < 0)
            return rc;
        *out = x->s;
    } else {
        /* c = a∘b first (a and b are transformed in place next); a =
         * LDE(a)·LDE(b), c = LDE(c), a = the H scalars, all in place */
        if ((rc = gpu_fr_mul(curve, x->c, x->a, x->b, n, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, x->a, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, x->b, e)) < 0 ||
            (rc = gpu_fr_mul(curve, x->a, x->a, x->b, n, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, x->c, e)) < 0 ||
            (rc = gpu_h_scalars(curve, x->a, x->a, NULL, x->c, k, n, e)) < 0 || (rc = gpu_sync(e)) < 0)
            return rc;
        *out = x->a;
    }
    return 0;
}

__global__ void fault_trap(void)
{
    __trap();
}

extern "C" int gpu_inject_fault(int sticky, struct sp_err *e)
{
    if (sticky) {
        /* an illegal instruction: the context is lost, as after a real
         * kernel crash; every later call fails */
        fault_trap<<<1, 1>>>();
        CU_TRY(cudaStreamSynchronize(cudaStreamPerThread), e, "injected kernel trap");
        return 0;
    }
    /* an impossible launch configuration: a kernel error that leaves the
     * context usable */
    fault_trap<<<1, 4096>>>();
    CU_TRY(cudaGetLastError(), e, "injected kernel launch");
    return 0;
}

extern "C" int gpu_context_lost(void)
{
    /* a plain error is cleared by reading it; a sticky one (the context is
     * gone) is returned by every call after it */
    cudaGetLastError();
    if (cudaDeviceSynchronize() == cudaSuccess)
        return 0;
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
}
