/* gpu_device.cu — which GPU gpud would use (gpu_device.h). */
#include <stdio.h>

#include "gpu_device.h"
#include "gpu_util.cuh"

extern "C" int gpu_describe(char *buf, size_t len, struct sp_err *e)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0))
        return sp_fail(e, -ENODEV, "gpu: no CUDA device visible (%s)",
                       err ? cudaGetErrorString(err) : "0 devices");
    CU_TRY(err, e, "device count");
    int dev = 0;
    CU_TRY(cudaGetDevice(&dev), e, "current device");
    cudaDeviceProp p;
    CU_TRY(cudaGetDeviceProperties(&p, dev), e, "device properties");
    snprintf(buf, len, "%s, %.1f GiB, sm_%d%d, %d SMs", p.name,
             (double)p.totalGlobalMem / (1024.0 * 1024 * 1024), p.major, p.minor, p.multiProcessorCount);
    return 0;
}
