/*
 * bellperson_shape.h - a bellperson key (.params + cuzk PCE) described in
 * the terms the rest of slotprove sizes and checks keys by: its key_shape
 * (curve, witness length, public signals, domain), so the supervisor's
 * key cache, the slot layout (shm/payload.h) and the witness checks
 * (wtns_check_key) treat both kinds alike. Issue 23.
 */
#ifndef SLOTPROVE_BELLPERSON_SHAPE_H
#define SLOTPROVE_BELLPERSON_SHAPE_H

#include "bellperson_params.h"
#include "bellperson_pce.h"
#include "err.h"
#include "key_shape.h"
#include "zkey.h"

/* Checks that a .params (layout walked, bp_params_open) and a PCE describe
 * the same circuit: ic = num_inputs, l = num_aux, h = domain − 1, a =
 * num_inputs + a_aux popcount, b_g1 = b_input + b_aux popcounts.
 * -SP_EMISMATCH naming both files and the counts. */
int bp_params_match_pce(const struct bp_params *k, const struct bp_pce *p, struct sp_err *e);

/* Fills zk with the key's shape (key_shape.h): BLS12-381, n_vars = num_inputs + num_aux (wire 0
 * = 1, the inputs, then aux: the witness order of README-bellperson.md),
 * n_public = num_inputs − 1, domain_size = bp_pce_domain_size, n_coefs =
 * the PCE's non-zeros (total_nnz, for the synthesis cost estimate), path =
 * path. -SP_ERANGE when the domain passes 2^ZKEY_MAX_LOG_DOMAIN. */
int bp_key_shape(struct key_shape *zk, const struct bp_pce *p, const char *path,
                 struct sp_err *e);

#endif
