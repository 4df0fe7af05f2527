/*
 * bellperson_ntt.h - the evaluation domain and quotient of bellperson's
 * Groth16 prover (bellperson src/domain.rs, src/groth16/prover:
 * execute_fft; SupraSeal groth16_ntt_h.cu does the same on the GPU).
 *
 * bellperson's roots are not snarkjs's: ω_n = 7^((r−1)/n) (the ff crate's
 * ROOT_OF_UNITY = MULTIPLICATIVE_GENERATOR^t, generator 7; the 2^32-th root
 * is 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b),
 * and the coset is 7·⟨ω⟩. Constraint i of a bellperson key sits at ω_n^i.
 * The quotient is returned in the monomial basis, matched by the .params h
 * section (τ^i·Z(τ)/δ).
 */
#ifndef SLOTPROVE_BELLPERSON_NTT_H
#define SLOTPROVE_BELLPERSON_NTT_H

#include "bls12381.h"
#include "ntt.h"

#define BP_MULTIPLICATIVE_GENERATOR 7

/* ret = 7^((r−1)/2^log_n), Montgomery form; log_n <= 32. */
void bp_root_of_unity(bls12381_fr_t *ret, unsigned log_n);

/* A domain of size 2^log_n on bellperson's roots, shift 7, for the
 * bls12381_ntt_* transforms. 0, -EINVAL, -ENOMEM; free with
 * bls12381_ntt_domain_free. */
int bp_domain_init(struct bls12381_ntt_domain *d, unsigned log_n, unsigned nthreads);

/* The odd u < n with ω_snarkjs^u = ω_bellperson (both of order n = 2^log_n):
 * bellperson's row i is snarkjs's row u·i mod n (the same domain point). */
uint64_t bp_row_map_factor(unsigned log_n);

/* h = (A·B − C)/Z in the monomial basis, Z = X^n − 1: a, b, c hold the
 * evaluations at ω^i (Montgomery form, n = d->n elements; b and c are
 * overwritten); on return a[0..n−2] are h's coefficients (a[n−1] = 0 for a
 * satisfied witness; bellperson drops it). Steps as bellperson's: iNTT of
 * a, b, c; coset NTT (×7^i, NTT); a·b − c; ×1/(7^n − 1); coset iNTT (iNTT,
 * ×7^−i). */
void bp_quotient(bls12381_fr_t *a, bls12381_fr_t *b, bls12381_fr_t *c,
                 const struct bls12381_ntt_domain *d, unsigned nthreads);

/* For the same quotient computed on snarkjs's roots and coset (the GPU's
 * NTT, gpud/cuda/cuda_bellperson.h): H's coefficients are the polynomial's
 * own whichever coset evaluates it, so with s = snarkjs's coset shift for
 * 2^log_n (bls12381_ntt_coset_shift) the inverse NTT of (a·b − c) on
 * s·⟨ω⟩, times scale·shift_inv^i, is h. scale = 1/(s^n − 1), shift_inv =
 * 1/s, Montgomery form. */
void bp_device_coset_constants(unsigned log_n, bls12381_fr_t *scale, bls12381_fr_t *shift_inv);

#endif
