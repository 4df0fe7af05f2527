/*
 * assemble.h — the Groth16 proof from the MSM results, shared by every
 * backend (the CPU one in gpud/cpu/, the CUDA one in gpud/cuda/).
 *
 *   X_groth16_assemble(zk, pi_a, pi_b1, pi_b, pi_c, pi_h, out, e)
 * pi_a = πA' = Σ w_i A_i, pi_b1 = πB1' = Σ w_i B1_i (G1), pi_b = πB' =
 * Σ w_i B2_i (G2), pi_c = πC' = Σ_{i>nPublic} w_i C_i, pi_h = πH = Σ h_i H_i,
 * all Jacobian, coordinates in Montgomery form. Draws the blinding r, s
 * (getrandom) and applies snarkjs's formulas (groth16_prove.js; the
 * formulas are at the top of assemble_tmpl.h) with the key's α1, β1, β2,
 * δ1, δ2. Fills out (affine, standard form; the layout of proof.h).
 * Errors: -errno from getrandom.
 */
#ifndef SLOTPROVE_ASSEMBLE_H
#define SLOTPROVE_ASSEMBLE_H

#include "bls12381.h"
#include "bn254.h"
#include "err.h"
#include "proof.h"
#include "zkey.h"

int bn254_groth16_assemble(const struct zkey *zk, const bn254_g1_jac_t *pi_a,
                           const bn254_g1_jac_t *pi_b1, const bn254_g2_jac_t *pi_b,
                           const bn254_g1_jac_t *pi_c, const bn254_g1_jac_t *pi_h,
                           struct groth16_proof *out, struct sp_err *e);
int bls12381_groth16_assemble(const struct zkey *zk, const bls12381_g1_jac_t *pi_a,
                              const bls12381_g1_jac_t *pi_b1, const bls12381_g2_jac_t *pi_b,
                              const bls12381_g1_jac_t *pi_c, const bls12381_g1_jac_t *pi_h,
                              struct groth16_proof *out, struct sp_err *e);

#endif
