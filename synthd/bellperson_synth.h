/*
 * bellperson_synth.h — a bellperson partition's a, b from its cuzk
 * constraint file (the PCE's CSR matrices), written into a slot as a
 * zkey's are (shm/payload.h), for gpud to prove with bellperson's
 * conventions. Issue 23; the PCE format is common/bellperson_pce.h.
 */
#ifndef SLOTPROVE_BELLPERSON_SYNTH_H
#define SLOTPROVE_BELLPERSON_SYNTH_H

#include <stddef.h>

#include "child_keys.h"
#include "err.h"

/* witness: the slot's n_vars × 32 bytes (standard form, < r: checked when
 * read), wire 0 first; a, b: the slot's domain_size × 32 bytes each,
 * written in the slot's form (a = A·w, b = B·w over the PCE's rows, in
 * standard form, zero past num_constraints; gpud forms c = a∘b).
 * wname names the witness in messages. 0, or -SP_ERANGE "W: wire 0 is not
 * 1" (bellperson's "one" wire). */
int bellperson_synth_slot(const struct child_key *k, const uint8_t *witness, uint8_t *a,
                          uint8_t *b, const char *wname, unsigned nthreads,
                          struct sp_err *e);

#endif
