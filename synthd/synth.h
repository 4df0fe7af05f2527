/*
 * synth.h — synthesis into a slot (synth_tmpl.h instances).
 *
 *   X_synth_abc(ix, zk, witness, a, b, c, nthreads)
 * witness: n_vars × 32 bytes, standard form, < r (checked when read), 32-byte
 * aligned. a, b, c: domain_size × 32 bytes each, written in the slot's form
 * (shm/payload.h): a·R^-1, b·R^-1 and c = a·b·R^-3 mod r, R = 2^256.
 * Rows with no entries come out zero.
 */
#ifndef SLOTPROVE_SYNTH_H
#define SLOTPROVE_SYNTH_H

#include "bls12381.h"
#include "bn254.h"
#include "synth_index.h"

/* Defined where a, b, c are written in the slot's form above (not Montgomery
 * form, as builds before it did): tests/bench_synth.c compares across. */
#define SYNTH_ABC_SLOT_FORM 1

void bn254_synth_abc(const struct synth_index *ix, const struct zkey *zk,
                     const void *witness, void *a, void *b, void *c, unsigned nthreads);
void bls12381_synth_abc(const struct synth_index *ix, const struct zkey *zk,
                        const void *witness, void *a, void *b, void *c, unsigned nthreads);

#endif
