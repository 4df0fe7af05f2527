/*
 * synth.h — synthesis into a slot (synth_tmpl.h instances).
 *
 *   X_synth_ab(ix, zk, witness, a, b, nthreads)
 * witness: n_vars × 32 bytes, standard form, < r (checked when read), 32-byte
 * aligned. a, b: domain_size × 32 bytes each, written in the slot's form
 * (shm/payload.h): a·R^-1 and b·R^-1 mod r, R = 2^256. Rows with no
 * entries come out zero. c = a∘b is not written: gpud forms it.
 */
#ifndef SLOTPROVE_SYNTH_H
#define SLOTPROVE_SYNTH_H

#include "bls12381.h"
#include "bn254.h"
#include "synth_index.h"

/* Defined where a, b (and c, before SYNTH_AB_ONLY) are written in the
 * slot's form above (not Montgomery form, as builds before it did):
 * tests/bench_synth.c compares across. */
#define SYNTH_ABC_SLOT_FORM 1
/* Defined where synthesis writes a and b only (X_synth_ab; builds before it
 * had X_synth_abc, which also wrote c = a∘b): tests/bench_synth.c. */
#define SYNTH_AB_ONLY 1

void bn254_synth_ab(const struct synth_index *ix, const struct zkey *zk,
                    const void *witness, void *a, void *b, unsigned nthreads);
void bls12381_synth_ab(const struct synth_index *ix, const struct zkey *zk,
                       const void *witness, void *a, void *b, unsigned nthreads);

#endif
