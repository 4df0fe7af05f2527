/*
 * gpu_fixed_base.cu — many multiples k_i·P of one fixed point P on the GPU,
 * for `slotprove keygen` (gpu_fixed_base.h): the CPU code's window table
 * (common/fixed_base.h: for window j and digit d ≥ 1, d·2^(window·j)·P,
 * affine) is uploaded once; each thread then adds one table point per
 * non-zero window digit of its scalar (XYZZ mixed additions, ec.cuh: no
 * doublings) and converts the sum to affine with one Fermat inversion, so
 * the output is byte for byte what the CPU's X_fb_mul_batch writes.
 */
#include <errno.h>
#include <new>

#include "gpu_fixed_base.h"
#include "gpu_mem.h"
#include "gpu_util.cuh"
#include "ec.cuh"

/* a^(p−2) = a^−1 for a ≠ 0 (Fermat), 4-bit fixed windows over the exponent's
 * nibbles from the top: 4 squarings and at most one product per nibble.
 * Out of line (as fields.cuh's Fp2 product) to keep the compile short. */
template <class P> __device__ __noinline__ fp<P> fp_inv(const fp<P> a)
{
    fp<P> tbl[16];
    tbl[0] = fp<P>::one();
    tbl[1] = a;
#pragma unroll 1
    for (int k = 2; k < 16; k++)
        tbl[k] = tbl[k - 1] * a;
    fp<P> r = fp<P>::one();
    bool started = false;
#pragma unroll 1
    for (int i = 8 * P::N - 1; i >= 0; i--) {
        if (started) {
            r = sqr(r);
            r = sqr(r);
            r = sqr(r);
            r = sqr(r);
        }
        /* p − 2: p's lowest limb is odd and above 2, so no borrow */
        uint32_t limb = P::p(i >> 3) - ((i >> 3) == 0 ? 2u : 0u);
        uint32_t nib = (limb >> (4 * (i & 7))) & 15u;
        if (nib) {
            r = started ? r * tbl[nib] : tbl[nib];
            started = true;
        }
    }
    return r;
}

/* (c0 + c1 u)^−1 = (c0 − c1 u) / (c0² + c1²), as u² = −1. */
template <class P> __device__ __noinline__ fp2<P> fp_inv(const fp2<P> a)
{
    fp<P> n = a.c0 * a.c0 + a.c1 * a.c1;
    fp<P> ni = fp_inv(n);
    return fp2<P>{ a.c0 * ni, -(a.c1 * ni) };
}

/* x = X/ZZ, y = Y/ZZZ with one inversion of ZZ·ZZZ; ∞ → (0, 0). */
template <class F> FF_INLINE affine<F> xyzz_to_affine(const xyzz<F> &p)
{
    if (is_zero(p.ZZ))
        return affine<F>{ F::zero(), F::zero() };
    F t = fp_inv(p.ZZ * p.ZZZ);
    return affine<F>{ p.X * (t * p.ZZZ), p.Y * (t * p.ZZ) };
}

/* out[i] = k_i·P: k holds n scalars of 8 little-endian 32-bit words
 * (standard form, any 256-bit value); table[j·row + d − 1] = d·2^(window·j)·P. */
template <class F>
__global__ void fb_mul_kernel(affine<F> *out, const affine<F> *table, const uint32_t *k, size_t n,
                              unsigned window, unsigned nwin, size_t row)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t *ki = k + 8 * i;
    const uint32_t mask = (1u << window) - 1;
    xyzz<F> acc = xyzz_inf<F>();
#pragma unroll 1
    for (unsigned j = 0; j < nwin; j++) {
        unsigned bit = j * window, w = bit >> 5, sh = bit & 31;
        if (w >= 8)
            break;
        uint64_t two = ki[w] | (w + 1 < 8 ? (uint64_t)ki[w + 1] << 32 : 0);
        uint32_t d = (uint32_t)(two >> sh) & mask;
        if (d)
            acc = xyzz_add_affine(acc, table[j * row + d - 1]);
    }
    out[i] = xyzz_to_affine(acc);
}

struct gpu_fb {
    enum gpu_group g;
    unsigned window, nwin;
    size_t row, psize, cap;
    void *table, *k, *out;
};

static size_t fb_point_bytes(enum gpu_group g)
{
    switch (g) {
    case GPU_BN254_G1: return sizeof(affine<bn254_fp_d>);
    case GPU_BN254_G2: return sizeof(affine<bn254_fp2_d>);
    case GPU_BLS12381_G1: return sizeof(affine<bls12381_fp_d>);
    default: return sizeof(affine<bls12381_fp2_d>);
    }
}

extern "C" void gpu_fb_free(struct gpu_fb *f)
{
    if (!f)
        return;
    if (f->k) /* the scalars derive from the setup's secrets: leave none behind */
        cudaMemset(f->k, 0, f->cap * 32);
    gpu_mem_free(f->table);
    gpu_mem_free(f->k);
    gpu_mem_free(f->out);
    delete f;
}

extern "C" int gpu_fb_create(struct gpu_fb **ret, enum gpu_group g, const void *table,
                             unsigned window, size_t max_batch, struct sp_err *e)
{
    *ret = nullptr;
    if (g < GPU_BN254_G1 || g > GPU_BLS12381_G2 || window < 1 || window > 16 || max_batch == 0)
        return sp_fail(e, -EINVAL, "gpu fixed-base: window %u (1 to 16), batch %zu", window,
                       max_batch);
    /* the rows of common/fixed_base.h's table: ⌈256/window⌉ */
    const unsigned nwin = (256 + window - 1) / window;
    struct gpu_fb *f = new (std::nothrow) gpu_fb();
    if (!f)
        return sp_fail(e, -ENOMEM, "gpu fixed-base: out of host memory");
    f->g = g;
    f->window = window;
    f->nwin = nwin;
    f->row = ((size_t)1 << window) - 1;
    f->psize = fb_point_bytes(g);
    f->cap = max_batch;
    size_t tbytes = (size_t)nwin * f->row * f->psize;
    int rc = gpu_mem_alloc(&f->table, tbytes, GPU_MEM_OTHER, "fixed-base table", e);
    if (!rc)
        rc = gpu_mem_alloc(&f->k, max_batch * 32, GPU_MEM_OTHER, "fixed-base scalars", e);
    if (!rc)
        rc = gpu_mem_alloc(&f->out, max_batch * f->psize, GPU_MEM_OTHER, "fixed-base output", e);
    if (rc) {
        gpu_fb_free(f);
        return rc;
    }
    cudaError_t err = cudaMemcpy(f->table, table, tbytes, cudaMemcpyHostToDevice);
    if (err) {
        gpu_fb_free(f);
        return sp_fail(e, err == cudaErrorMemoryAllocation ? -ENOMEM : -EIO,
                       "gpu fixed-base: table of %zu bytes and batch of %zu: %s", tbytes,
                       max_batch, cudaGetErrorString(err));
    }
    *ret = f;
    return 0;
}

extern "C" int gpu_fb_mul_batch(struct gpu_fb *f, void *out, const void *k, size_t n,
                                struct sp_err *e)
{
    if (n == 0)
        return 0;
    if (n > f->cap)
        return sp_fail(e, -EINVAL, "gpu fixed-base: batch of %zu past %zu", n, f->cap);
    CU_TRY(cudaMemcpy(f->k, k, n * 32, cudaMemcpyHostToDevice), e, "fixed-base scalars upload");
    unsigned blocks = (unsigned)((n + 127) / 128);
    const uint32_t *dk = (const uint32_t *)f->k;
    switch (f->g) {
#define FB_CASE(G, F)                                                                           \
    case G:                                                                                     \
        fb_mul_kernel<F><<<blocks, 128>>>((affine<F> *)f->out, (const affine<F> *)f->table, dk, \
                                          n, f->window, f->nwin, f->row);                       \
        break;
        FB_CASE(GPU_BN254_G1, bn254_fp_d)
        FB_CASE(GPU_BN254_G2, bn254_fp2_d)
        FB_CASE(GPU_BLS12381_G1, bls12381_fp_d)
        FB_CASE(GPU_BLS12381_G2, bls12381_fp2_d)
#undef FB_CASE
    }
    CU_TRY(cudaGetLastError(), e, "fixed-base kernel launch");
    CU_TRY(cudaMemcpy(out, f->out, n * f->psize, cudaMemcpyDeviceToHost), e,
           "fixed-base kernel or points download");
    return 0;
}
