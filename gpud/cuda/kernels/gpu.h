/*
 * gpu.h — slotprove's own CUDA kernels, called from C: Fr NTTs and
 * Pippenger MSMs for G1 and G2 of BN254 and BLS12-381 (the .cu files beside this one).
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
#ifndef SLOTPROVE_CUDA_GPU_H
#define SLOTPROVE_CUDA_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"
#include "gpu_mem.h"

enum gpu_curve { GPU_BN254 = 0, GPU_BLS12381 = 1 };
enum gpu_group { GPU_BN254_G1 = 0, GPU_BN254_G2, GPU_BLS12381_G1, GPU_BLS12381_G2 };

/* ---- NTT over Fr (gpu_ntt.cu): snarkjs's roots (common/ntt_tmpl.h) ---- */
struct gpu_ntt;
/* Prepares the twiddle and coset tables of a domain of 2^log_n points on the
 * device (about 2 · 2^log_n · 32 B); 1 ≤ log_n ≤ 27. */
int gpu_ntt_create(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n, struct sp_err *e);
void gpu_ntt_free(struct gpu_ntt *d);
/* out ← NTT(in) (common/ntt.h X_forward); device pointers, out ≠ in, in kept. */
int gpu_ntt_forward(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e);
/* out ← NTT^−1(in) (X_inverse); out ≠ in, in kept. */
int gpu_ntt_inverse(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e);
/* out ← coset low-degree extension of in (X_coset_lde: iNTT, ×shift^i, NTT);
 * out ≠ in, in is overwritten (scratch). */
int gpu_ntt_coset_lde(struct gpu_ntt *d, void *out, void *in, struct sp_err *e);

/* ---- MSM (gpu_msm.cu) ---- */
struct gpu_msm;
/* Uploads n_max points (host memory, zkey layout) once; they stay resident
 * until gpu_msm_free. Working buffers for n_max scalars are allocated here. */
int gpu_msm_create(struct gpu_msm **ret, enum gpu_group g, const void *points, size_t n_max,
                   struct sp_err *e);
void gpu_msm_free(struct gpu_msm *m);
/* ret (the CPU code's X_gN_jac_t of the group) = Σ_{i<n} k_i·P_i over the
 * first n resident points; scalars in host memory (n × 32 B), n ≤ n_max.
 * window_bits 0 chooses the window size from n. */
int gpu_msm_run(struct gpu_msm *m, void *ret, const void *scalars, size_t n,
                unsigned window_bits, struct sp_err *e);
/* The same with k point arrays uploaded back to back (a key's A, B1, C and H
 * points: one upload, one set of working buffers sized for the largest
 * array); counts[i] points in arrays[i]. All device memory an engine
 * holds is charged to the ledger (gpu_mem.h: points, msm, stream). */
int gpu_msm_create_arrays(struct gpu_msm **ret, enum gpu_group g, const void *const *arrays,
                          const size_t *counts, unsigned k, struct sp_err *e);
/* ret = Σ_{i<n} k_i·P_{at+i} over the resident points from index at (the
 * concatenation of gpu_msm_create_arrays' arrays); scalars in host or
 * device memory (n × 32 B, standard form: device scalars are read in
 * place, host ones uploaded); the window size chosen from n. */
int gpu_msm_run_at(struct gpu_msm *m, void *ret, size_t at, const void *scalars, size_t n,
                   struct sp_err *e);
/* The same with the parts of each run bounded to chunk points (0: no
 * limit), which bounds the working buffers; with stream the points stay in
 * host memory (arrays must outlive the engine; page-locked for full-speed
 * copies: gpu_host_register) and each run copies each part's points into
 * one of two staging buffers of chunk points on the device while the part
 * before is being summed. */
int gpu_msm_create_chunked(struct gpu_msm **ret, enum gpu_group g, const void *const *arrays,
                           const size_t *counts, unsigned k, size_t chunk, int stream,
                           struct sp_err *e);
/* Device bytes an engine of group g made with (chunk, stream) needs beside
 * resident points, for runs over each of the k sizes[i] (working buffers
 * for the largest of them, staging buffers when streamed): what it takes
 * from the ledger (gpu_mem.h). 0 with e set on a CUDA error. */
size_t gpu_msm_plan(enum gpu_group g, const size_t *sizes, unsigned k, size_t chunk, int stream,
                    struct sp_err *e);
/* The window size gpu_msm_run would choose for n points of group g. */
unsigned gpu_msm_window_bits(enum gpu_group g, size_t n);

/* ---- fixed-base multiplication, for keygen (gpu_fixed_base.cu) ---- */
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

/* ---- field operations, for tests (gpu_field.cu) ---- */
enum gpu_field {
    GPU_F_BN254_FR, GPU_F_BN254_FP, GPU_F_BN254_FP2,
    GPU_F_BLS12381_FR, GPU_F_BLS12381_FP, GPU_F_BLS12381_FP2
};
enum gpu_field_opcode { GPU_OP_MUL, GPU_OP_ADD, GPU_OP_SUB, GPU_OP_SQR };
/* out[i] = a[i] op b[i] (Montgomery product for MUL, a[i]² for SQR) for
 * n elements in host memory, in the CPU code's layout. */
int gpu_field_op(enum gpu_field f, enum gpu_field_opcode op, void *out, const void *a,
                 const void *b, size_t n, struct sp_err *e);

/* ---- what the CUDA backend needs besides (gpu_prove.cu) ----
 * Calls queue on the calling thread's default stream (the kernels are built
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
/* Page-locks read-only host memory (gpud's mapping of the slot pool), so
 * uploads from it are direct DMA, not staged through a pinned buffer. */
int gpu_host_register(void *p, size_t bytes, struct sp_err *e);
void gpu_host_unregister(void *p);
/* out[i] = a[i]·b[i] (Montgomery product; device vectors of n Fr; out may
 * be a or b). */
int gpu_fr_mul(enum gpu_curve curve, void *out, const void *a, const void *b, size_t n,
               struct sp_err *e);
/* out[i] = a[i]·b[i] − c[i] out of Montgomery form (device vectors of n Fr;
 * b NULL: a[i] is already the product): the H MSM's scalars (snarkjs
 * groth16_prove.js: (A·B − C) on the coset). */
int gpu_h_scalars(enum gpu_curve curve, void *out, const void *a, const void *b, const void *c,
                  size_t n, struct sp_err *e);
/* Fault tests: a kernel that fails at launch (sticky 0: the context stays
 * usable) or traps (sticky 1: the context is lost, as after a real crash).
 * Returns the -EIO of the failure. */
int gpu_inject_fault(int sticky, struct sp_err *e);
/* 1 when the CUDA context can no longer be used (a sticky error): the
 * process must exit so a fresh one takes the GPU. */
int gpu_context_lost(void);

/* ---- device (gpu_device.cu) ---- */
/* Describes device 0 into buf ("NVIDIA H200, 139.8 GiB, sm_90, 132 SMs");
 * -ENODEV when no device is visible. */
int gpu_describe(char *buf, size_t len, struct sp_err *e);

#ifdef __cplusplus
}
#endif

#endif
