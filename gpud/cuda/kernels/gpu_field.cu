/*
 * gpu_field.cu — element-wise field operations on the GPU for tests
 * (gpu_field.h): the building blocks of the NTT and MSM checked one
 * at a time against the CPU code's field_tmpl.h / fp2_tmpl.h.
 */
#include <errno.h>

#include "gpu_field.h"
#include "gpu_mem.h"
#include "gpu_util.cuh"
#include "fields.cuh"

template <class F> __global__ void field_op_kernel(F *out, const F *a, const F *b, size_t n, int op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    switch (op) {
    case GPU_OP_MUL: out[i] = a[i] * b[i]; break;
    case GPU_OP_ADD: out[i] = a[i] + b[i]; break;
    case GPU_OP_SUB: out[i] = a[i] - b[i]; break;
    default: out[i] = sqr(a[i]); break;
    }
}

template <class F>
static int field_op(void *out, const void *a, const void *b, size_t n, int op, struct sp_err *e)
{
    F *d[3] = {};
    size_t bytes = n * sizeof(F);
    int rc = 0;
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 3 && !rc; i++)
        rc = gpu_mem_alloc((void **)&d[i], bytes, GPU_MEM_OTHER, "field test buffers", e);
    if (rc) {
        for (int i = 0; i < 3; i++)
            gpu_mem_free(d[i]);
        return rc;
    }
    if (!err)
        err = cudaMemcpy(d[1], a, bytes, cudaMemcpyHostToDevice);
    if (!err)
        err = cudaMemcpy(d[2], b, bytes, cudaMemcpyHostToDevice);
    if (!err) {
        field_op_kernel<F><<<(unsigned)((n + 255) / 256), 256>>>(d[0], d[1], d[2], n, op);
        err = cudaGetLastError();
    }
    if (!err)
        err = cudaMemcpy(out, d[0], bytes, cudaMemcpyDeviceToHost);
    if (err)
        rc = sp_fail(e, -EIO, "gpu field op: %s", cudaGetErrorString(err));
    for (int i = 0; i < 3; i++)
        gpu_mem_free(d[i]);
    return rc;
}

extern "C" int gpu_field_op(enum gpu_field f, enum gpu_field_opcode op, void *out, const void *a,
                            const void *b, size_t n, struct sp_err *e)
{
    switch (f) {
    case GPU_F_BN254_FR: return field_op<bn254_fr_d>(out, a, b, n, op, e);
    case GPU_F_BN254_FP: return field_op<bn254_fp_d>(out, a, b, n, op, e);
    case GPU_F_BN254_FP2: return field_op<bn254_fp2_d>(out, a, b, n, op, e);
    case GPU_F_BLS12381_FR: return field_op<bls12381_fr_d>(out, a, b, n, op, e);
    case GPU_F_BLS12381_FP: return field_op<bls12381_fp_d>(out, a, b, n, op, e);
    case GPU_F_BLS12381_FP2: return field_op<bls12381_fp2_d>(out, a, b, n, op, e);
    }
    return sp_fail(e, -EINVAL, "gpu field op: unknown field %d", (int)f);
}
