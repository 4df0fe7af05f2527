/*
 * cuda_fallback.h — the CUDA backend's partitions proved on its fallback
 * backend (be->fallback, the CPU one), for every key format: through the
 * fallback's own row for the key's format (backend.h). The one place the
 * CUDA backend hands a partition to the CPU; whether it does is decided by
 * its rows (cuda_backend.c, cuda_bellperson_row.c) from be->fallback_on_fault.
 *
 *   cuda_fallback_start(p, k, in, &job, e)
 *                         the fallback's prove_start on the slot's data.
 *   cuda_fallback_finish(be, k, job, out, t, e)
 *                         its prove_finish (be's progress callback passed on).
 *   cuda_fallback_host(be, k, in, out, t, e)
 *                         both, on inputs in host memory the caller kept
 *                         (a bellperson partition the device failed, a
 *                         proof that failed gpud's check).
 *   cuda_cpu_from_device(be, k, j, out, t, e)
 *                         a zkey partition: downloads the inputs j's buffer
 *                         set kept and proves them on the fallback (a
 *                         failed GPU phase under `auto`, a proof that failed
 *                         gpud's check).
 * Each returns 0 with the proof in out, or the fallback's error.
 */
#ifndef SLOTPROVE_CUDA_FALLBACK_H
#define SLOTPROVE_CUDA_FALLBACK_H

#include "cuda_priv.h"
#include "err.h"

int cuda_fallback_start(struct cuda_priv *p, const struct child_key *k,
                        const struct prove_input *in, void **job, struct sp_err *e);
int cuda_fallback_finish(struct backend *be, const struct child_key *k, void *job,
                         struct groth16_proof *out, struct stage_times *t, struct sp_err *e);
int cuda_fallback_host(struct backend *be, const struct child_key *k,
                       const struct prove_input *in, struct groth16_proof *out,
                       struct stage_times *t, struct sp_err *e);
int cuda_cpu_from_device(struct backend *be, const struct child_key *k, struct cuda_job *j,
                         struct groth16_proof *out, struct stage_times *t, struct sp_err *e);

#endif
