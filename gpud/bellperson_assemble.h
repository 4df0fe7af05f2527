/*
 * bellperson_assemble.h — the parts of a bellperson proof every backend
 * shares (gpud/cpu/bellperson_prove.h on the CPU, gpud/cuda/cuda_bellperson.h
 * on the GPU): the MSM scalars gathered by the PCE's density bitmaps, and
 * the proof from the five MSM results (bellperson src/groth16/prover/native.rs):
 *   A = α1 + Σa + r·δ1, B = β2 + Σb_g2 + s·δ2,
 *   C = s·A + r·(β1 + Σb_g1 + s·δ1) − r·s·δ1 + Σh + Σl,
 *   r, s uniform in Fr (getrandom).
 */
#ifndef SLOTPROVE_GPUD_BELLPERSON_ASSEMBLE_H
#define SLOTPROVE_GPUD_BELLPERSON_ASSEMBLE_H

#include <stddef.h>
#include <stdint.h>

#include "bellperson_key.h"
#include "bellperson_pce.h"
#include "bls12381.h"
#include "err.h"

/* Scalars of the wires whose bit is set, inputs (bitmap in, or every
 * input when in == NULL) then aux (bitmap aux), 32 bytes each, from the
 * witness w (standard form): the a, b_g1, b_g2 MSMs' scalars in the order
 * of their points. Returns the count. */
size_t bp_gather(uint8_t *out, const uint8_t *w, uint32_t n_in, uint32_t n_aux,
                 const struct bp_density *in, const struct bp_density *aux);

/* The proof from the five MSMs (h, l, a, b_g1 in G1, b_g2 in G2) with
 * fresh r, s (getrandom), as in the header comment. 0, or the getrandom error. */
int bp_assemble(const struct bp_key *k, const bls12381_g1_jac_t *h, const bls12381_g1_jac_t *l,
                const bls12381_g1_jac_t *ma, const bls12381_g1_jac_t *mb1,
                const bls12381_g2_jac_t *mb2, bls12381_g1_affine_t *A, bls12381_g2_affine_t *B,
                bls12381_g1_affine_t *C, struct sp_err *e);

#endif
