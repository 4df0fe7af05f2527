/*
 * bellperson_proof.h - bellperson's proof bytes and verifying key, next to
 * slotprove's own forms (proof.h, groth16.h).
 *
 * A proof is 192 bytes: A (G1, 48) ‖ B (G2, 96) ‖ C (G1, 48), each in the
 * compressed zcash encoding (bellperson src/groth16/proof.rs `Proof::write`:
 * to_bytes(), i.e. to_compressed). A job of k partitions returns k proofs
 * concatenated in partition order (1920 bytes for a 10-partition sector).
 * The verification equation is Groth16's and snarkjs's (groth16.h), so a
 * bellperson proof converts to snarkjs's proof.json and back losslessly.
 */
#ifndef SLOTPROVE_BELLPERSON_PROOF_H
#define SLOTPROVE_BELLPERSON_PROOF_H

#include <stdint.h>

#include "bellperson_params.h"
#include "bls12381.h"
#include "err.h"
#include "groth16.h"
#include "proof.h"

#define BP_PROOF_BYTES 192

/* proof (affine, Montgomery form) -> 192 bytes. */
void bp_proof_encode(uint8_t out[BP_PROOF_BYTES], const bls12381_g1_affine_t *a,
                     const bls12381_g2_affine_t *b, const bls12381_g1_affine_t *c);

/* 192 bytes -> struct groth16_proof (standard-form limbs, curve
 * bls12381), with flags, < q, on-curve and subgroup checks of A, B, C.
 * 0, or -SP_EFORMAT / -SP_ERANGE "NAME: proof I: B: not in the
 * prime-order subgroup". */
int bp_proof_decode(struct groth16_proof *p, const uint8_t in[BP_PROOF_BYTES], const char *name,
                    unsigned index, struct sp_err *e);

/* struct groth16_proof (a proof.json's, curve bls12381) -> 192 bytes.
 * The coordinates must be below q and on the curve (checked), none at
 * infinity (bellperson cannot encode a proof with one: its verifier
 * refuses them). 0, or -SP_ERANGE / -SP_EMISMATCH "NAME: pi_b: ...". */
int bp_proof_from_groth16(uint8_t out[BP_PROOF_BYTES], const struct groth16_proof *p,
                          const char *name, struct sp_err *e);

/* The same conversion from affine points. */
void bp_proof_to_groth16(struct groth16_proof *p, const bls12381_g1_affine_t *a,
                         const bls12381_g2_affine_t *b, const bls12381_g1_affine_t *c);

/* The verifying key of a bellperson .vk or .params file as slotprove's
 * groth16_vk (n_public = n_ic − 1; prepared; vk->ic_owned holds IC): the vk
 * points decoded with all checks (subgroups included). Free with
 * groth16_vk_free. 0, or the decode error. */
int bp_vk_to_groth16(struct groth16_vk *vk, const struct bp_params *p, unsigned nthreads,
                     struct sp_err *e);

#endif
