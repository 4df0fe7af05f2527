/*
 * gpu_bellperson.h — the small kernels of gpu_bellperson.cu that bellperson's
 * quotient needs on top of gpu_ntt.h (gpud/cuda/cuda_bellperson.c), over
 * BLS12-381's Fr, device vectors of n = 2^k elements (32 B each, the CPU
 * code's layout, gpu_types.h). Each call queues on the calling thread's
 * stream; 0 or -EIO (a launch error, named in e).
 */
#ifndef SLOTPROVE_CUDA_GPU_BELLPERSON_H
#define SLOTPROVE_CUDA_GPU_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

/* out[(u·i) mod n] = in[i] for i < n (u odd, n a power of two: a
 * permutation): bellperson's row i, evaluated at ω_b^i, moved to where
 * snarkjs's root puts the same point (ω_b^i = ω_s^(u·i), common/
 * bellperson_ntt.h bp_row_map_factor). out ≠ in. */
int gpu_bp_scatter(void *out, const void *in, size_t n, uint64_t u, struct sp_err *e);

/* out[i] = a[i] − b[i] (Montgomery form; out may be a or b). */
int gpu_bp_sub(void *out, const void *a, const void *b, size_t n, struct sp_err *e);

/* out[i] = in[i]·c·base^i, out of Montgomery form (standard-form scalars
 * for an MSM); c and base are Montgomery-form Fr (32 B each, host memory).
 * With base = shift^−1 and c = 1/(shift^n − 1) this turns the inverse NTT
 * of (a·b − c) on the coset shift·⟨ω⟩ into h's monomial coefficients.
 * out may be in. */
int gpu_bp_monomial(void *out, const void *in, size_t n, const void *c, const void *base,
                    struct sp_err *e);

/* bellperson's quotient h (gpud/cuda/cuda_bellperson.h) on the device: a,
 * b host vectors of n = 2^log_n Fr (evaluations at bellperson's ω_b^i;
 * kept), both in Montgomery form or both in the slot's (shm/payload.h); c
 * = a∘b is formed here by a Montgomery product after the row permutation
 * (the slot has no c): Montgomery form again, or a·b·R^-1 for the slot's,
 * which the caller's scale accounts for (cuda_bellperson.c);
 * u = bp_row_map_factor(log_n); scale and shift_inv from
 * bp_device_coset_constants (host, 32 B each). *h ← a device
 * vector of n standard-form coefficients (the MSM's scalars; h[n−1] = 0 for
 * a satisfied witness), charged to the ledger's vectors part: free it with
 * gpu_mem_free. Holds three vectors (one stages each upload for the row
 * permutation, then holds c) and the NTT's tables while it runs: lean 0
 * the full tables (gpu_ntt_create: 4 GiB at 2^27), a's and b's coset LDEs
 * in place (all three vectors are live), c's and the inverse NTT out of
 * place; lean 1 a compact domain (gpu_ntt_create_compact: under 1 MiB at
 * 2^27), the three coset LDEs and the inverse NTT in place (the same
 * values).
 * 0, -ENOMEM (the budget), -EIO. */
int gpu_bp_quotient(unsigned log_n, int lean, const void *a, const void *b, uint64_t u,
                    const void *scale, const void *shift_inv, void **h, struct sp_err *e);
/* Ledger bytes gpu_bp_quotient holds at its peak: three vectors of
 * 2^log_n × 32 B and gpu_ntt_plan(log_n, lean), each gpu_mem_charge'd. */
size_t gpu_bp_quotient_plan(unsigned log_n, int lean);

#ifdef __cplusplus
}
#endif

#endif
