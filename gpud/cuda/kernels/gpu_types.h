/*
 * gpu_types.h — the types shared by the C entry points of slotprove's own
 * CUDA kernels (Fr NTTs and Pippenger MSMs for G1 and G2 of BN254 and
 * BLS12-381): gpu_ntt.h, gpu_msm.h, gpu_fixed_base.h, gpu_field.h,
 * gpu_prove.h, gpu_device.h, one per .cu file beside this one.
 *
 * Data layouts are the CPU code's (common/ntt.h, common/msm.h), so the same
 * bytes go to either backend:
 *   Fr vectors   domain_size × 32 B, Montgomery form, natural order
 *   points       a snarkjs .zkey point array (affine x‖y, Montgomery form,
 *                little-endian limbs, all-zero = infinity)
 *   scalars      n × 32 B, standard form, little-endian, each < r
 * Calls run on the current device's default stream and return when their
 * result is ready (NTT calls return after queueing: synchronize before
 * reading device memory from the host). Errors: 0, -ENOMEM (device or host
 * allocation), -EINVAL (bad size), -EIO (a CUDA error, named in e).
 */
#ifndef SLOTPROVE_CUDA_GPU_TYPES_H
#define SLOTPROVE_CUDA_GPU_TYPES_H

enum gpu_curve { GPU_BN254 = 0, GPU_BLS12381 = 1 };
enum gpu_group { GPU_BN254_G1 = 0, GPU_BN254_G2, GPU_BLS12381_G1, GPU_BLS12381_G2 };

#endif
