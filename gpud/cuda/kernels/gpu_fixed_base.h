/*
 * gpu_fixed_base.h — the fixed-base multiplication of gpu_fixed_base.cu, for
 * keygen, called from C.
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_FIXED_BASE_H
#define SLOTPROVE_CUDA_GPU_FIXED_BASE_H

#include <stddef.h>

#include "gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

struct gpu_fb;
/* Uploads the window table of common/fixed_base.h (X_fb_init's t->pts:
 * nwin = ⌈256/window⌉ rows of 2^window − 1 affine points, the zkey layout;
 * window 1..16; nwin follows from window) of group g and sizes the buffers for batches of up to
 * max_batch scalars. -EINVAL (sizes), -ENOMEM (device memory), -EIO. */
int gpu_fb_create(struct gpu_fb **ret, enum gpu_group g, const void *table, unsigned window,
                  size_t max_batch, struct sp_err *e);
void gpu_fb_free(struct gpu_fb *f);
/* out[i] = k[i]·P, affine (infinity as (0, 0)), for i < n ≤ max_batch: the
 * bytes X_fb_mul_batch writes. k: n × 32 B standard-form scalars (4 LE
 * 64-bit limbs, any 256-bit value); out, k in host memory. */
int gpu_fb_mul_batch(struct gpu_fb *f, void *out, const void *k, size_t n, struct sp_err *e);

#ifdef __cplusplus
}
#endif

#endif
