/*
 * bellperson_key.h — what gpud keeps of a bellperson key (issue 23): the
 * .params' points decoded when the key is loaded (struct bp_key, the
 * layout the MSMs of every backend take), and its vk prepared for the
 * proofs' checks.
 *
 *   bellperson_key_load(k, params_fd, e)
 *       decodes k's .params (k->params has its layout) into k->prover_key
 *       (a struct bellperson_key): every point on its curve and not at
 *       infinity; the subgroup tests were made once by the supervisor when
 *       it first loaded the file (the key cache, by hash:
 *       run/sup/keys_bellperson.c). 0, or the decoding error naming section
 *       and index; -ENOMEM.
 *   bellperson_key_free(k)   frees k->prover_key (the backend's key_drop
 *       freed its engine first).
 */
#ifndef SLOTPROVE_GPUD_BELLPERSON_KEY_H
#define SLOTPROVE_GPUD_BELLPERSON_KEY_H

#include "bellperson_params.h"
#include "bellperson_pce.h"
#include "bls12381.h"
#include "child_keys.h"
#include "err.h"
#include "groth16.h"

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


struct bellperson_key {
    struct bp_key key;    /* the points, Montgomery affine */
    struct groth16_vk vk; /* prepared; ic points into key */
    void *engine;         /* the backend's, e.g. the GPU's MSM engines: made by its
                             bellperson row, freed by that row's key_drop */
};

int bellperson_key_load(struct child_key *k, int params_fd, struct sp_err *e);
void bellperson_key_free(struct child_key *k);

#endif
