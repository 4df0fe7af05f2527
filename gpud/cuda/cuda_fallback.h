/*
 * cuda_fallback.h — the CUDA backend's partitions proved on its fallback
 * backend (be->fallback, the CPU one).
 *
 *   cuda_cpu_start(p, j, zk, in, e)   the fallback's prove_start on the
 *                                     slot's data (j->cpu_job).
 *   cuda_cpu_from_device(be, zk, j, out, t, e)
 *                                     downloads the inputs j's buffer set
 *                                     kept and proves them on the fallback
 *                                     (a failed GPU phase under `auto`, a
 *                                     proof that failed gpud's check).
 */
#ifndef SLOTPROVE_CUDA_FALLBACK_H
#define SLOTPROVE_CUDA_FALLBACK_H

#include "cuda_priv.h"
#include "err.h"

int cuda_cpu_start(struct cuda_priv *p, struct cuda_job *j, const struct zkey *zk,
                   const struct prove_input *in, struct sp_err *e);
int cuda_cpu_from_device(struct backend *be, const struct zkey *zk, struct cuda_job *j,
                         struct groth16_proof *out, struct stage_times *t, struct sp_err *e);

#endif
