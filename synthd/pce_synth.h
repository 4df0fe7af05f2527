/*
 * pce_synth.h — a, b of a bellperson partition from cuzk's constraint
 * file (common/bellperson_pce.h): the sparse products over the CSR rows,
 * as synthd computes them for a zkey from its coefficient section
 * (cuzk-pce src/eval.rs does the same on the host side of cuzk).
 */
#ifndef SLOTPROVE_PCE_SYNTH_H
#define SLOTPROVE_PCE_SYNTH_H

#include <stddef.h>

#include "bellperson_pce.h"
#include "bls12381.h"

/* a, b (the slot's form, standard form, shm/payload.h;
 * domain_size elements each) for the witness w (num_inputs + num_aux
 * values in STANDARD form, < r, as a .wtns and a slot hold them: no
 * converted copy is needed): rows < num_constraints from A and B, the rest
 * zero. c = a∘b is gpud's to form (gpud/cpu/bellperson_prove.c,
 * gpud/cuda/cuda_bellperson.c). The PCE's values are Montgomery form, so
 * each Montgomery product v·w comes out in standard form, and so does
 * the row's sum: the slot's form. domain_size >=
 * num_constraints. nthreads 0 = all. */
void bp_pce_synth_ab(const struct bp_pce *p, const bls12381_fr_t *w, bls12381_fr_t *a,
                     bls12381_fr_t *b, size_t domain_size, unsigned nthreads);

#endif
