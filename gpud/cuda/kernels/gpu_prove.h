/*
 * gpu_prove.h — device memory, copies and the prover's small kernels of
 * gpu_prove.cu, called from the CUDA backend.
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_PROVE_H
#define SLOTPROVE_CUDA_GPU_PROVE_H

#include <stddef.h>

#include "gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

/* Calls queue on the calling thread's default stream (the kernels are built
 * with --default-stream per-thread, so two threads' work overlaps). */
/* Device memory: -ENOMEM "out of device memory" when it does not fit. */
int gpu_alloc(void **ret, size_t bytes, struct sp_err *e);
void gpu_free(void *p);
/* Copies bytes of host memory to the device and waits for the copy. */
int gpu_upload(void *dev, const void *host, size_t bytes, struct sp_err *e);
/* Copies bytes of device memory to the host and waits for the copy. */
int gpu_download(void *host, const void *dev, size_t bytes, struct sp_err *e);
/* Queues a device-to-device copy of bytes. */
int gpu_copy(void *dst, const void *src, size_t bytes, struct sp_err *e);
/* Waits for the calling thread's queued work; its first error, if any. */
int gpu_sync(struct sp_err *e);
/* The device's free and total memory, in bytes. */
int gpu_mem_info(size_t *free_bytes, size_t *total_bytes, struct sp_err *e);
/* Page-locking host memory (the slot pool, so uploads from it are direct
 * DMA; streamed keys' points): gpu_mem_register of gpu_mem.h, which
 * charges what the lock costs the device. */
/* out[i] = a[i]·b[i] (Montgomery product; device vectors of n Fr; out may
 * be a or b). */
int gpu_fr_mul(enum gpu_curve curve, void *out, const void *a, const void *b, size_t n,
               struct sp_err *e);
/* out[i] = (a[i]·b[i] − c[i])·k·R^-1 (device vectors of n Fr; b NULL: a[i]
 * is already the product; k 32 bytes, host, plain limbs): the H MSM's
 * scalars (snarkjs groth16_prove.js: (A·B − C) on the coset) in standard
 * form: k = 1 for vectors in Montgomery form, R^2 for the slot's form
 * (shm/payload.h: a, b standard form, c their Montgomery product). */
int gpu_h_scalars(enum gpu_curve curve, void *out, const void *a, const void *b, const void *c,
                  const void *k, size_t n, struct sp_err *e);
/* A worker's device vectors for gpu_h_stage, n Fr each (cuda_budget.h
 * cuda_set_sizes): fast (lean 0): a, b (the slot's, kept for a CPU
 * re-prove), s the scratch, o1 and o2 the LDE outputs, c unused; lean
 * (lean 1): a, b and c, s, o1 and o2 unused. */
struct gpu_h_bufs {
    int lean;
    void *a, *b, *c, *s, *o1, *o2;
};
struct gpu_ntt;
/* The h stage of a proof on the device (the CUDA backend's, gpu_test's
 * "h stage" rows): from the slot's a and b (shm/payload.h: standard
 * form; c is not in the slot), c = a∘b formed here (gpu_fr_mul:
 * a·b·R^-1), the three
 * coset LDEs on d (snarkjs groth16_prove.js: iNTT, ×shift^i, NTT), and
 * the H scalars (LDE(a)·LDE(b) − LDE(c))·k·R^-1 (gpu_h_scalars; k = R^2
 * for the slot's form: standard form). Fast: c formed in s, the LDEs out
 * of place, the scalars in s, a and b kept. Lean: c formed in c, each LDE
 * in place (d may be compact), the scalars in a, the inputs overwritten.
 * *out ← the vector holding the scalars. Waits for the work (gpu_sync);
 * 0 or its error. */
int gpu_h_stage(struct gpu_ntt *d, enum gpu_curve curve, const struct gpu_h_bufs *x,
                const void *k, size_t n, void **out, struct sp_err *e);
/* Fault tests: a kernel that fails at launch (sticky 0: the context stays
 * usable) or traps (sticky 1: the context is lost, as after a real crash).
 * Returns the -EIO of the failure. */
int gpu_inject_fault(int sticky, struct sp_err *e);
/* 1 when the CUDA context can no longer be used (a sticky error): the
 * process must exit so a fresh one takes the GPU. */
int gpu_context_lost(void);

#ifdef __cplusplus
}
#endif

#endif
