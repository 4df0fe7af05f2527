/*
 * gpu_msm.h — the Pippenger MSMs of gpu_msm.cu (instances in
 * bn254_g1_msm.cu etc.), called from C.
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_MSM_H
#define SLOTPROVE_CUDA_GPU_MSM_H

#include <stddef.h>

#include "gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

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
 * copies: gpu_mem_register) and each run copies each part's points into
 * one of two staging buffers of chunk points on the device while the part
 * before is being summed. */
int gpu_msm_create_chunked(struct gpu_msm **ret, enum gpu_group g, const void *const *arrays,
                           const size_t *counts, unsigned k, size_t chunk, int stream,
                           struct sp_err *e);
/* Ledger bytes (gpu_mem.h) gpu_msm_create_chunked over k arrays of
 * sizes[i] points with (chunk, stream) takes beside resident points: the
 * working buffers for a run over any one array (each dimension the largest
 * over the arrays), and the staging buffers when streamed. Computed by the
 * same function (msm.cuh's layout) the engine allocates from. 0 with e set
 * on a CUDA error. */
size_t gpu_msm_plan(enum gpu_group g, const size_t *sizes, unsigned k, size_t chunk, int stream,
                    struct sp_err *e);
/* Ledger bytes of the resident points of an engine over k arrays of
 * sizes[i] points of group g (gpu_mem_charge of their one allocation). */
size_t gpu_msm_plan_points(enum gpu_group g, const size_t *sizes, unsigned k);
/* Ledger bytes engine m holds now: gpu_msm_plan's figure for its arrays
 * (plus its resident points), and a host-scalar buffer (n × 32 B for the
 * largest run given host scalars) or growth for a run over more points
 * than its largest array, once such a run has been made. */
size_t gpu_msm_device_bytes(const struct gpu_msm *m);
/* The most local memory (bytes a thread) any MSM kernel of any group
 * takes: what the driver's local memory grows to at their first launch,
 * times the device's resident threads (gpu_mem_context_reserve). */
size_t gpu_msm_local_bytes(void);
/* The window size gpu_msm_run would choose for n points of group g. */
unsigned gpu_msm_window_bits(enum gpu_group g, size_t n);

#ifdef __cplusplus
}
#endif

#endif
