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
 *             r, s uniform in Fr (getrandom)
 * The public inputs enter only through IC at verification.
 */
#ifndef SLOTPROVE_BELLPERSON_PROVE_H
#define SLOTPROVE_BELLPERSON_PROVE_H

#include <stdint.h>

#include "bellperson_params.h"
#include "bellperson_pce.h"
#include "bls12381.h"
#include "err.h"

/* A .params file's points decoded for the MSMs (Montgomery affine, the
 * layout common/msm.h takes). */
struct bp_key {
    struct bp_params params;
    bls12381_g1_affine_t alpha1, beta1, delta1;
    bls12381_g2_affine_t beta2, gamma2, delta2;
    bls12381_g1_affine_t *ic, *h, *l, *a, *b_g1;
    bls12381_g2_affine_t *b_g2;
};

/* Opens and decodes the .params behind fd: every point checked (flags,
 * < q, on the curve, not infinity, and in the subgroup when subgroup = 1),
 * nthreads threads (0 = all). The file is unmapped once decoded
 * (k->params keeps its counts and path). 0, or the reader's error naming
 * section and index; -ENOMEM. */
int bp_key_load(struct bp_key *k, int fd, const char *path, int subgroup, unsigned nthreads,
                struct sp_err *e);
void bp_key_free(struct bp_key *k);

/* Checks that key and constraint file describe the same circuit: ic =
 * num_inputs, l = num_aux, h = domain − 1, a = num_inputs + a_aux
 * popcount, b = b_input + b_aux popcounts. -SP_EMISMATCH naming both. */
int bp_key_match_pce(const struct bp_key *k, const struct bp_pce *p, struct sp_err *e);

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

/* Scalars of the wires whose bit is set, inputs (bitmap in, or every
 * input when in == NULL) then aux (bitmap aux), 32 bytes each, from the
 * witness w (standard form): the a, b_g1, b_g2 MSMs' scalars in the order
 * of their points. Returns the count. */
size_t bp_gather(uint8_t *out, const uint8_t *w, uint32_t n_in, uint32_t n_aux,
                 const struct bp_density *in, const struct bp_density *aux);

/* The proof from the five MSMs (h, l, a, b_g1 in G1, b_g2 in G2) with
 * fresh r, s (getrandom), as in the header comment; shared by the CPU and
 * CUDA paths. 0, or the getrandom error. */
int bp_assemble(const struct bp_key *k, const bls12381_g1_jac_t *h, const bls12381_g1_jac_t *l,
                const bls12381_g1_jac_t *ma, const bls12381_g1_jac_t *mb1,
                const bls12381_g2_jac_t *mb2, bls12381_g1_affine_t *A, bls12381_g2_affine_t *B,
                bls12381_g1_affine_t *C, struct sp_err *e);

#endif
