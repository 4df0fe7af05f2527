/*
 * gpu_util.cuh — CUDA error handling for the kernels' host code.
 *   CU_TRY(call, e, what)  returns from the enclosing int function with
 *   -ENOMEM (device allocation failure) or -EIO and a message naming what
 *   failed and CUDA's reason, when call does not return cudaSuccess.
 */
#ifndef SLOTPROVE_CUDA_GPU_UTIL_CUH
#define SLOTPROVE_CUDA_GPU_UTIL_CUH

#include <errno.h>

#include <cuda_runtime.h>

extern "C" {
#include "err.h"
}

#define CU_TRY(call, e, what)                                                            \
    do {                                                                                 \
        cudaError_t cu_err_ = (call);                                                    \
        if (cu_err_ != cudaSuccess)                                                      \
            return sp_fail((e), cu_err_ == cudaErrorMemoryAllocation ? -ENOMEM : -EIO,   \
                           "gpu: %s: %s", (what), cudaGetErrorString(cu_err_));          \
    } while (0)

#endif
