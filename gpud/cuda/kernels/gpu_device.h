/*
 * gpu_device.h — describing the device (gpu_device.cu).
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_DEVICE_H
#define SLOTPROVE_CUDA_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

/* Describes device 0 into buf ("NVIDIA H200, 139.8 GiB, sm_90, 132 SMs");
 * -ENODEV when no device is visible. */
int gpu_describe(char *buf, size_t len, struct sp_err *e);

#ifdef __cplusplus
}
#endif

#endif
