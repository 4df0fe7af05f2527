/*
 * bellperson_key.h — what gpud keeps of a bellperson key (issue 23): the
 * .params' points decoded when the key is loaded, and its vk prepared for
 * the proofs' checks.
 *
 *   bellperson_key_load(k, params_fd, e)
 *       decodes k's .params (k->params has its layout) into k->prover_key
 *       (a struct bellperson_key): every point on its curve and not at
 *       infinity; the subgroup tests were made once by the supervisor when
 *       it first loaded the file (the key cache, by hash:
 *       run/sup/keys_bellperson.c). 0, or the decoding error naming section
 *       and index; -ENOMEM.
 *   bellperson_key_free(k)   frees k->prover_key.
 */
#ifndef SLOTPROVE_GPUD_BELLPERSON_KEY_H
#define SLOTPROVE_GPUD_BELLPERSON_KEY_H

#include "bellperson_prove.h"
#include "child_keys.h"
#include "err.h"
#include "groth16.h"

struct bellperson_key {
    struct bp_key key;    /* the points, Montgomery affine */
    struct groth16_vk vk; /* prepared; ic points into key */
    void *engine;         /* the backend's (ops->bp_prove), e.g. the GPU's MSM engines */
};

int bellperson_key_load(struct child_key *k, int params_fd, struct sp_err *e);
void bellperson_key_free(struct child_key *k);

#endif
