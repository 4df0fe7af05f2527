/* cuda_backend.h — the CUDA prover backend's ops (backend.h), on the
 * kernels of gpud/cuda/kernels/gpu_*.h. It needs be->fallback (an open CPU
 * backend) for re-proves of proofs that fail gpud's check and, with
 * be->fallback_on_fault, for what the GPU cannot prove (open: -EINVAL
 * without it). open fails with gpu_describe's error, naming the reason,
 * when no device is visible. */
#ifndef SLOTPROVE_CUDA_BACKEND_H
#define SLOTPROVE_CUDA_BACKEND_H

#include "backend.h"

extern const struct backend_ops cuda_backend_ops;

#endif
