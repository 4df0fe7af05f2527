/*
 * bellperson_prove.h - Groth16 proving with bellperson's conventions on the
 * CPU (bellperson src/groth16/prover/native.rs; SupraSeal groth16_srs.cuh /
 * groth16_ntt_h.cu take the same steps on the GPU):
 *   a, b, c   a, b from the PCE, by synthd (synthd/pce_synth.h: A·w, B·w;
 *             its last rows are bellperson's input constraints); c = a∘b
 *             formed here (bp_prove_abc)
 *   h         the quotient in the monomial basis (common/bellperson_ntt.h:
 *             iNTT, coset NTT with generator 7, /(7^n − 1), coset iNTT),
 *             n − 1 coefficients against the .params h section
 *   MSMs      h; l over the aux wires; a over every input and the aux wires
 *             of the a_aux density; b_g1, b_g2 over the b_input and b_aux
 *             densities (scalars gathered by the bitmaps, in wire order)
 *   proof     A = α1 + Σa + r·δ1, B = β2 + Σb_g2 + s·δ2,
 *             C = s·A + r·(β1 + Σb_g1 + s·δ1) − r·s·δ1 + Σh + Σl,
 *             r, s uniform in Fr (getrandom): bp_assemble,
 *             gpud/bellperson_assemble.h, shared with the GPU
 * The public inputs enter only through IC at verification.
 */
#ifndef SLOTPROVE_BELLPERSON_PROVE_H
#define SLOTPROVE_BELLPERSON_PROVE_H

#include <stdint.h>

#include "bellperson_key.h"
#include "bellperson_pce.h"
#include "bls12381.h"
#include "err.h"

/* One proof from a, b as synthd computed them (the slot's form: standard
 * form; domain size each, as in a slot's payload, shm/payload.h;
 * overwritten), c a buffer of the same size (its contents not read: c =
 * a∘b, a·b·R^-1, is formed there) and the
 * witness w (num_inputs + num_aux values, standard form, < r; w[0] = 1):
 * A, B, C affine. 0, -ENOMEM, or the getrandom error. */
int bp_prove_abc(const struct bp_key *k, const struct bp_pce *p, const uint8_t *w,
                 bls12381_fr_t *a, bls12381_fr_t *b, bls12381_fr_t *c,
                 bls12381_g1_affine_t *A, bls12381_g2_affine_t *B, bls12381_g1_affine_t *C,
                 unsigned nthreads, struct sp_err *e);

#endif
