/*
 * groth16.h — Groth16 verification against a verifying key taken from a
 * zkey (its own alpha1, beta2, gamma2, delta2 and IC) or from snarkjs's
 * verification_key.json.
 *
 * The check is snarkjs's (src/groth16_verify.js):
 *   e(-A, B) e(alpha1, beta2) e(vk_x, gamma2) e(C, delta2) == 1,
 *   vk_x = IC[0] + sum_i public[i] IC[i+1],
 * done as one multi-pairing: three (or four) Miller loops and one final
 * exponentiation; with groth16_vk_prepare, e(alpha1, beta2) is computed
 * once per key and multiplied in after the final exponentiation.
 */
#ifndef SLOTPROVE_GROTH16_H
#define SLOTPROVE_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "err.h"
#include "groth16_types.h"
#include "proof.h"
#include "zkey.h"

/* vk from a zkey's header and IC section; vk->ic points into the zkey's
 * mapping (vk must not outlive zk). Does not prepare. */
void groth16_vk_from_zkey(struct groth16_vk *vk, const struct zkey *zk);

/* Computes e(alpha1, beta2) into vk (one pairing). */
void groth16_vk_prepare(struct groth16_vk *vk);

void groth16_vk_free(struct groth16_vk *vk);

/* Checks a key taken from outside (verification_key.json): alpha1 and
 * IC[0..n_public] in the prime-order subgroup G1, beta2, gamma2, delta2 in
 * G2, and none of alpha1, beta2, gamma2, delta2 the point at infinity (IC
 * points may be). Points must already be on their curves (from_std).
 * Returns 0 or -SP_ERANGE with the point's name ("vk_delta_2 is not in the
 * prime-order subgroup G2"); the caller adds the file's name. */
int groth16_vk_check_subgroups(const struct groth16_vk *vk, struct sp_err *e);

/* Writes the Montgomery-form zkey-layout bytes of an affine point given in
 * standard form (limbs as in struct groth16_proof; G1: xy[2][6], G2:
 * xy[2][2][6] with c0, c1) to out. Returns 0, or -SP_ERANGE with a message
 * naming `what` if a coordinate is not below q or the point is not on its
 * curve (infinity, x = y = 0, is allowed). */
int groth16_g1_from_std(enum curve_id c, const uint64_t xy[2][6], uint8_t *out,
                        const char *what, struct sp_err *e);
int groth16_g2_from_std(enum curve_id c, const uint64_t xy[2][2][6], uint8_t *out,
                        const char *what, struct sp_err *e);

/* Verifies proof p for n_pub public signals pub (32 bytes each, standard
 * form LE, i.e. witness[1..nPublic] as in a .wtns). Checks, in order: the
 * proof's curve and n_pub match the key, every signal is below r; when
 * `subgroups` is set (a proof read from a file needs it, one slotprove just
 * computed from a checked key does not) none of A, B, C the point at
 * infinity (z "0", or x = y = 0: "pi_a is the point at infinity"); A and C
 * on G1's curve and B on the twist; when `subgroups` is set A, C in G1 and
 * B in G2 (prime-order subgroups); then the
 * pairing equation. Returns 0 (valid), -SP_EVERIFY (the pairing equation
 * fails: "the pairing check fails"), or -SP_EMISMATCH / -SP_ERANGE with the
 * reason. */
int groth16_verify(const struct groth16_vk *vk, const uint8_t *pub, uint32_t n_pub,
                   const struct groth16_proof *p, int subgroups, struct sp_err *e);

#endif
