/*
 * synth.h — synthesis into a slot (synth_tmpl.h instances).
 *
 *   X_synth_abc(ix, zk, witness, a, b, c, nthreads)
 * witness: n_vars × 32 bytes, standard form, < r (checked when read), 32-byte
 * aligned. a, b, c: domain_size × 32 bytes each, written in Montgomery form.
 * Rows with no entries come out zero.
 */
#ifndef SLOTPROVE_SYNTH_H
#define SLOTPROVE_SYNTH_H

#include "bls12381.h"
#include "bn254.h"
#include "synth_index.h"

void bn254_synth_abc(const struct synth_index *ix, const struct zkey *zk,
                     const void *witness, void *a, void *b, void *c, unsigned nthreads);
void bls12381_synth_abc(const struct synth_index *ix, const struct zkey *zk,
                        const void *witness, void *a, void *b, void *c, unsigned nthreads);

/* synth_coef_class (synth_index.h) on each curve. */
enum synth_class bn254_synth_coef_class(const uint8_t value[32], uint32_t *small);
enum synth_class bls12381_synth_coef_class(const uint8_t value[32], uint32_t *small);
/* cls[i] = class of coefs[i] (n entries) on each curve. */
void bn254_synth_classify(const struct zkey_coef *coefs, size_t n, uint8_t *cls);
void bls12381_synth_classify(const struct zkey_coef *coefs, size_t n, uint8_t *cls);

#endif
