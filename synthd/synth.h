/*
 * synth.h — synthesis into a slot (synth_tmpl.h instances).
 *
 *   X_synth_ab(ix, zk, witness, a, b, nthreads)
 * witness: n_vars × 32 bytes, standard form, < r (checked when read), 32-byte
 * aligned. a, b: domain_size × 32 bytes each, written in the slot's form
 * (shm/payload.h): standard form, fully reduced (< r). Rows with no
 * entries come out zero. c = a∘b is not written: gpud forms it.
 */
#ifndef SLOTPROVE_SYNTH_H
#define SLOTPROVE_SYNTH_H

#include "bls12381.h"
#include "bn254.h"
#include "synth_index.h"

/* Defined where a and b are written in standard form (2026-12-03; builds
 * from 07cadd7 defined SYNTH_ABC_SLOT_FORM instead and wrote a·R^-1, b·R^-1,
 * and builds before those Montgomery form): tests/bench_synth.c compares
 * across them. */
#define SYNTH_AB_STANDARD 1
/* Defined where synthesis writes a and b only (X_synth_ab; builds before it
 * had X_synth_abc, which also wrote c = a∘b): tests/bench_synth.c. */
#define SYNTH_AB_ONLY 1

/* a and b are stored with non-temporal stores (x86-64; elsewhere plain
 * ones) for domains of at least synth_nt_min_rows rows, where a and b (64
 * bytes a row) are far larger than any cache and nothing reads them back in
 * synthd: the stores skip the read-for-ownership of every line. H200 host
 * (2026-12-03, BN254 2^24, 14 threads): a, b 2204 against 2680 CPU ms
 * (1.16x per core); on the 2-vCPU EPYC dev box, where the threshold keeps
 * them off, they were level to 5% slower at 2^18-2^22 (synthd/README.md,
 * "Sixth pass"). Tests set it to 1 to run
 * that path on small keys; builds with -DSYNTH_NT_STORES=0|1 ignore it
 * (never, always). */
#define SYNTH_NT_MIN_ROWS (1u << 23)
extern uint32_t synth_nt_min_rows;

void bn254_synth_ab(const struct synth_index *ix, const struct zkey *zk,
                    const void *witness, void *a, void *b, unsigned nthreads);
void bls12381_synth_ab(const struct synth_index *ix, const struct zkey *zk,
                       const void *witness, void *a, void *b, unsigned nthreads);

/* out = v mod r (4 limbs, < r) for a 5-limb v < 2^312: the last step of
 * every row sum (synth_tmpl.h, reduce5), here for tests/test_synth.c. */
void bn254_synth_reduce_wide(uint64_t out[4], const uint64_t v[5]);
void bls12381_synth_reduce_wide(uint64_t out[4], const uint64_t v[5]);

#endif
