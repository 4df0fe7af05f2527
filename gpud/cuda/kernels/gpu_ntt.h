/*
 * gpu_ntt.h — the Fr NTTs of gpu_ntt.cu, called from C; snarkjs's roots
 * (common/ntt_tmpl.h).
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_NTT_H
#define SLOTPROVE_CUDA_GPU_NTT_H

#include <stddef.h>

#include "gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

struct gpu_ntt;
/* Prepares the twiddle and coset tables of a domain of 2^log_n points on the
 * device (about 2 · 2^log_n · 32 B); 1 ≤ log_n ≤ 27. */
int gpu_ntt_create(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n, struct sp_err *e);
void gpu_ntt_free(struct gpu_ntt *d);
/* The same domain with the twiddles in two half tables (2^⌈log_n/2⌉ +
 * 2^⌊log_n/2⌋ entries instead of 2^log_n: 0.75 MiB instead of 4 GiB at
 * 2^27), each twiddle one product of two of them: for
 * gpu_ntt_coset_lde_inplace and gpu_ntt_inverse_inplace only (the others
 * return -EINVAL): the CUDA
 * backend's lean workers. */
int gpu_ntt_create_compact(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n,
                           struct sp_err *e);
/* Ledger bytes (gpu_mem.h) gpu_ntt_create (compact 0) or
 * gpu_ntt_create_compact (1) of 2^log_n takes at its peak: twiddles (2^log_n
 * × 32 B, or the half tables), the coset factors' half tables, constants and
 * the power tables held while filling them, each rounded by gpu_mem_charge. */
size_t gpu_ntt_plan(unsigned log_n, int compact);
/* out ← NTT(in) (common/ntt.h X_forward); device pointers, out ≠ in, in kept. */
int gpu_ntt_forward(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e);
/* out ← NTT^−1(in) (X_inverse); out ≠ in, in kept. */
int gpu_ntt_inverse(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e);
/* out ← coset low-degree extension of in (X_coset_lde: iNTT, ×shift^i, NTT);
 * out ≠ in, in is overwritten (scratch). */
int gpu_ntt_coset_lde(struct gpu_ntt *d, void *out, void *in, struct sp_err *e);
/* x ← coset LDE of x in place (the same values as gpu_ntt_coset_lde): two
 * in-place bit-reversal permutations more than the out-of-place one, and
 * no second buffer: the CUDA backend's lean buffer sets (cuda_budget.h). */
int gpu_ntt_coset_lde_inplace(struct gpu_ntt *d, void *x, struct sp_err *e);
/* x ← NTT^−1(x) in place (the same values as gpu_ntt_inverse: a forward
 * NTT in place, then reversed and ×1/n in place); a compact domain too:
 * bellperson's lean quotient (gpu_bellperson.h). */
int gpu_ntt_inverse_inplace(struct gpu_ntt *d, void *x, struct sp_err *e);

#ifdef __cplusplus
}
#endif

#endif
