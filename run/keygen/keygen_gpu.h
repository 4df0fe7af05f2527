/*
 * keygen_gpu.h — keygen's point sections on the GPU (keygen_gpu.c), through the
 * helper program build/slotprove-keygen-gpu.
 */
#ifndef SLOTPROVE_KEYGEN_GPU_H
#define SLOTPROVE_KEYGEN_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "err.h"

/* The point sections on the GPU (keygen_gpu.c), when slotprove was built
 * with CUDA: the CPU's window tables (common/fixed_base.h) are uploaded
 * and each batch of scalars comes back as the affine points the CPU would
 * write, byte for byte.
 *   keygen_gpu_budget records the device memory budget (--gpu-mem) in bytes
 *                     for the helper's ledger (gpud/cuda/kernels/gpu_mem.h);
 *                     0: the default (free memory less gpu_mem_margin); call
 *                     it before keygen_gpu_probe, which then checks it
 *   keygen_gpu_probe  describes device 0 into desc ("NVIDIA H200, 139.8 GiB,
 *                     sm_90, 132 SMs"); -ENODEV without a GPU or without CUDA,
 *                     -ENOMEM when the budget leaves nothing
 *   keygen_gpu_open   uploads the G1 and G2 tables (window bits w1, w2) and
 *                     sizes batches of up to max_batch scalars; -ENOMEM, -EIO
 *   keygen_gpu_mul    out[i] = k[i]·generator of G1 (g2 = 0) or G2 (g2 = 1),
 *                     affine, the zkey layout, n ≤ max_batch */
struct keygen_gpu;
int keygen_gpu_budget(uint64_t bytes, struct sp_err *e);
int keygen_gpu_probe(char *desc, size_t len, struct sp_err *e);
int keygen_gpu_open(struct keygen_gpu **ret, enum curve_id curve, const void *t1, unsigned w1,
                    const void *t2, unsigned w2, size_t max_batch, struct sp_err *e);
int keygen_gpu_mul(struct keygen_gpu *g, int g2, void *out, const uint64_t (*k)[4], size_t n,
                   struct sp_err *e);
void keygen_gpu_close(struct keygen_gpu *g);

#endif
