/*
 * gpu_bellperson.cu — see gpu_bellperson.h.
 */
#include <string.h>

#include "fields.cuh"
#include "gpu_bellperson.h"
#include "gpu_mem.h"
#include "gpu_ntt.h"
#include "gpu_prove.h"
#include "gpu_util.cuh"

typedef bls12381_fr_d fr_d;

__global__ void bp_scatter(fr_d *out, const fr_d *in, size_t n, uint64_t u)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[(size_t)((u * (uint64_t)i) & (uint64_t)(n - 1))] = in[i];
}

__global__ void bp_sub(fr_d *out, const fr_d *a, const fr_d *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] - b[i];
}

/* base^i by square and multiply over i's bits, then ·c and out of
 * Montgomery form (x·1·R^−1) */
__global__ void bp_monomial(fr_d *out, const fr_d *in, size_t n, fr_d c, fr_d base)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_d acc = c, p = base;
    for (size_t k = i; k; k >>= 1) {
        if (k & 1)
            acc = acc * p;
        p = p * p;
    }
    fr_d one_raw = fr_d::zero();
    one_raw.v[0] = 1;
    out[i] = in[i] * acc * one_raw;
}

static unsigned blocks(size_t n)
{
    return (unsigned)((n + 255) / 256);
}

extern "C" int gpu_bp_scatter(void *out, const void *in, size_t n, uint64_t u, struct sp_err *e)
{
    bp_scatter<<<blocks(n), 256>>>((fr_d *)out, (const fr_d *)in, n, u);
    CU_TRY(cudaGetLastError(), e, "bellperson row permutation kernel");
    return 0;
}

extern "C" int gpu_bp_sub(void *out, const void *a, const void *b, size_t n, struct sp_err *e)
{
    bp_sub<<<blocks(n), 256>>>((fr_d *)out, (const fr_d *)a, (const fr_d *)b, n);
    CU_TRY(cudaGetLastError(), e, "Fr subtract kernel");
    return 0;
}

extern "C" int gpu_bp_monomial(void *out, const void *in, size_t n, const void *c,
                               const void *base, struct sp_err *e)
{
    fr_d cd, bd;
    memcpy(&cd, c, sizeof cd);
    memcpy(&bd, base, sizeof bd);
    bp_monomial<<<blocks(n), 256>>>((fr_d *)out, (const fr_d *)in, n, cd, bd);
    CU_TRY(cudaGetLastError(), e, "bellperson monomial kernel");
    return 0;
}

extern "C" int gpu_bp_quotient(unsigned log_n, int lean, const void *a, const void *b,
                               uint64_t u, const void *scale, const void *shift_inv, void **h,
                               struct sp_err *e)
{
    size_t n = (size_t)1 << log_n, vb = n * 32;
    void *x = NULL, *y = NULL, *z = NULL;
    struct gpu_ntt *d = NULL;
    int rc;
    if ((rc = gpu_mem_alloc(&x, vb, GPU_MEM_VECTORS, "vectors", e)) < 0 ||
        (rc = gpu_mem_alloc(&y, vb, GPU_MEM_VECTORS, "vectors", e)) < 0 ||
        (rc = gpu_mem_alloc(&z, vb, GPU_MEM_VECTORS, "vectors", e)) < 0 ||
        (rc = (lean ? gpu_ntt_create_compact : gpu_ntt_create)(&d, GPU_BLS12381, log_n, e)) < 0)
        goto out;
    /* z stages each upload for the row permutation: a's rows moved into x,
     * b's into y; then z <- C = A∘B on the moved rows (the slot has no c;
     * the permutation moves a, b and c alike, so c is formed after it) */
    if ((rc = gpu_upload(z, a, vb, e)) < 0 || (rc = gpu_bp_scatter(x, z, n, u, e)) < 0 ||
        (rc = gpu_sync(e)) < 0 || (rc = gpu_upload(z, b, vb, e)) < 0 ||
        (rc = gpu_bp_scatter(y, z, n, u, e)) < 0 ||
        (rc = gpu_fr_mul(GPU_BLS12381, z, x, y, n, e)) < 0)
        goto out;
    if (lean) {
        /* A's coset values in x, B's in y, x <- A*B; C's in z, x <- A*B -
         * C; x <- iNTT(x): all in place */
        if ((rc = gpu_ntt_coset_lde_inplace(d, x, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, y, e)) < 0 ||
            (rc = gpu_fr_mul(GPU_BLS12381, x, x, y, n, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, z, e)) < 0 || (rc = gpu_bp_sub(x, x, z, n, e)) < 0 ||
            (rc = gpu_ntt_inverse_inplace(d, x, e)) < 0 ||
            (rc = gpu_bp_monomial(x, x, n, scale, shift_inv, e)) < 0 || (rc = gpu_sync(e)) < 0)
            goto out;
    } else {
        /* the three vectors are all live: A's and B's coset values in
         * place in x and y, x <- A*B (y free); C's out of place in y (z
         * scratch), x <- A*B - C; z <- iNTT(x) */
        if ((rc = gpu_ntt_coset_lde_inplace(d, x, e)) < 0 ||
            (rc = gpu_ntt_coset_lde_inplace(d, y, e)) < 0 ||
            (rc = gpu_fr_mul(GPU_BLS12381, x, x, y, n, e)) < 0 ||
            (rc = gpu_ntt_coset_lde(d, y, z, e)) < 0 || (rc = gpu_bp_sub(x, x, y, n, e)) < 0 ||
            (rc = gpu_ntt_inverse(d, z, x, e)) < 0 ||
            (rc = gpu_bp_monomial(z, z, n, scale, shift_inv, e)) < 0 || (rc = gpu_sync(e)) < 0)
            goto out;
        void *t = x; /* the result is x's to hand out */
        x = z;
        z = t;
    }
    *h = x;
    x = NULL;
out:
    gpu_ntt_free(d);
    gpu_mem_free(x);
    gpu_mem_free(y);
    gpu_mem_free(z);
    return rc;
}

extern "C" size_t gpu_bp_quotient_plan(unsigned log_n, int lean)
{
    return 3 * gpu_mem_charge(((size_t)32) << log_n) + gpu_ntt_plan(log_n, lean);
}
