/*
 * cuda_bellperson.h — a bellperson partition proved on the GPU (issue 23),
 * with slotprove's own kernels: the quotient h in the monomial basis on the
 * device (gpu_ntt.h, gpu_bellperson.h), the five MSMs on engines made once
 * per key (gpu_msm.h), the proof assembled as on the CPU (bp_assemble,
 * gpud/bellperson_assemble.h).
 *
 * h. bellperson (prover/native.rs execute_fft, SupraSeal groth16_ntt_h.cu)
 * takes a, b, c as evaluations at ω_b^i (ω_b = 7^((r−1)/n)), iNTTs them,
 * evaluates on the coset 7·⟨ω_b⟩, divides a·b − c by 7^n − 1 and iNTTs
 * back from the coset: the coefficients of H = (A·B − C)/Z, degree < n − 1.
 * Those coefficients are the polynomial's own, whichever coset evaluates
 * it; so the device uses its NTT's roots and shift (snarkjs's, gpu_ntt.h):
 * it moves row i to position u·i mod n (ω_b^i = ω_s^(u·i),
 * bp_row_map_factor), forms c = a∘b from the moved a and b (the slot holds
 * a and b only), makes the three coset evaluations (gpu_ntt_coset_lde),
 * a·b − c, an inverse NTT, then multiplies coefficient i by
 * shift^−i/(shift^n − 1). gpu_test checks the result against the CPU's
 * bp_quotient, which takes bellperson's own steps.
 *
 * MSMs. One G1 engine holds h (n − 1), l (aux), a and b_g1 back to back,
 * one G2 engine b_g2; their scalars: h's stay on the device, l's are the
 * aux wires, a's and b's are gathered by the PCE's density bitmaps
 * (bp_gather, gpud/bellperson_assemble.h). The way is the budget's planner's (cuda_plan_shape,
 * cuda_budget.h; the budget is what the ledger has left when the key's
 * first proof comes): points resident or streamed from page-locked host
 * memory in parts of 2^24 down to 2^16 points, the quotient fast (full NTT
 * tables) or lean (in place on a compact NTT domain: 12 GiB of vectors
 * and under 1 MiB of tables at 2^27), one worker (the lock).
 *
 *   cuda_bp_prove(&eng, k, p, w, a, b, A, B, C, nthreads, e)
 *       *eng: the key's engines (NULL: made here, on the first proof);
 *       a, b: the slot's vectors (host, in the slot's form of
 *       shm/payload.h: standard form; kept, for a CPU re-prove; c =
 *       a∘b is formed on the device); w the witness (standard form). One proof at a time
 *       per process (a lock). 0; -E2BIG when the key cannot be proved
 *       within the budget (the message names the budget and what one lean
 *       worker streaming 2^16-point parts needs); -ENOMEM, -EIO.
 *   cuda_bp_ready(&eng, k, p, e)
 *       makes the key's engines if *eng is NULL (as cuda_bp_prove's first
 *       proof would), so a key that does not fit is known before a
 *       partition's data leaves its slot: 0, or make's errors (-E2BIG).
 *   cuda_bp_free(eng)   frees a key's engines.
 *   cuda_bp_quotient(log_n, lean, a, b, h, e)
 *       the quotient alone (gpu_bp_quotient, fast or lean), a, b as for
 *       cuda_bp_prove, h ← n standard-form coefficients in host memory.
 */
#ifndef SLOTPROVE_CUDA_BELLPERSON_H
#define SLOTPROVE_CUDA_BELLPERSON_H

#include <stdint.h>

#include "bellperson_key.h"
#include "err.h"

struct cuda_bp_engine;

int cuda_bp_prove(struct cuda_bp_engine **eng, const struct bp_key *k, const struct bp_pce *p,
                  const uint8_t *w, const bls12381_fr_t *a, const bls12381_fr_t *b,
                  bls12381_g1_affine_t *A, bls12381_g2_affine_t *B, bls12381_g1_affine_t *C,
                  unsigned nthreads, struct sp_err *e);
int cuda_bp_ready(struct cuda_bp_engine **eng, const struct bp_key *k, const struct bp_pce *p,
                  struct sp_err *e);
void cuda_bp_free(struct cuda_bp_engine *eng);
int cuda_bp_quotient(unsigned log_n, int lean, const bls12381_fr_t *a, const bls12381_fr_t *b,
                     uint8_t *h, struct sp_err *e);

#endif
