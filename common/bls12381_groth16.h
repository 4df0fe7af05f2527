/*
 * bls12381_groth16.h — Groth16 verification on bls12381: the per-curve bodies
 * that groth16.c dispatches to (defined by groth16_tmpl.h, included once by
 * bls12381_groth16.c). Points as in groth16_types.h.
 */
#ifndef SLOTPROVE_BLS12381_GROTH16_H
#define SLOTPROVE_BLS12381_GROTH16_H

#include <stdint.h>

#include "err.h"
#include "groth16_types.h"
#include "proof.h"

/* Standard-form affine point (limbs as in struct groth16_proof) to the
 * zkey layout (Montgomery bytes) in out: 0, -1 (a coordinate not below q)
 * or -2 (not on the curve; x = y = 0, infinity, is allowed). */
int bls12381_groth16_g1_from_std(const uint64_t xy[2][6], uint8_t *out);
int bls12381_groth16_g2_from_std(const uint64_t xy[2][2][6], uint8_t *out);

/* vk->alphabeta = e(alpha1, beta2); sets vk->prepared. */
void bls12381_groth16_alphabeta(struct groth16_vk *vk);

/* The checks and the pairing equation of groth16_verify (groth16.h), after
 * its checks of the curve, the count and the range of the public signals;
 * same returns. */
int bls12381_groth16_check(const struct groth16_vk *vk, const uint8_t *pub,
                           const struct groth16_proof *p, int subgroups, struct sp_err *e);

/* groth16_vk_check_subgroups (groth16.h) on this curve. */
int bls12381_groth16_vk_subgroups(const struct groth16_vk *vk, struct sp_err *e);

#endif
