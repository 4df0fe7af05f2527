/*
 * pce_synth.h — a, b, c of a bellperson partition from cuzk's constraint
 * file (common/bellperson_pce.h): the sparse products over the CSR rows,
 * as synthd computes them for a zkey from its coefficient section
 * (cuzk-pce src/eval.rs does the same on the host side of cuzk).
 */
#ifndef SLOTPROVE_PCE_SYNTH_H
#define SLOTPROVE_PCE_SYNTH_H

#include <stddef.h>

#include "bellperson_pce.h"
#include "bls12381.h"

/* a, b (Montgomery form, domain_size elements each) for the witness w
 * (num_inputs + num_aux values in STANDARD form, < r, as a .wtns and a
 * slot hold them: no converted copy is needed): rows < num_constraints
 * from A and B, the rest zero; c = a∘b. The PCE's values are Montgomery
 * form, so each Montgomery product v·w comes out in standard form; one
 * conversion per row puts the sum in Montgomery form. domain_size >=
 * num_constraints. nthreads 0 = all. */
void bp_pce_synth_abc(const struct bp_pce *p, const bls12381_fr_t *w, bls12381_fr_t *a,
                      bls12381_fr_t *b, bls12381_fr_t *c, size_t domain_size,
                      unsigned nthreads);

#endif
