/*
 * synth_class.h — coefficient classes of the synthesis index: most circom
 * coefficients are +1 or -1, many others small, so a term is an addition
 * (SYNTH_ONE, SYNTH_NEG_ONE), a small multiple (SYNTH_SMALL: |s| below
 * SYNTH_SMALL_LIMIT) or a Montgomery product (SYNTH_GENERAL).
 */
#ifndef SLOTPROVE_SYNTH_CLASS_H
#define SLOTPROVE_SYNTH_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "zkey.h"

enum synth_class { SYNTH_ONE = 0, SYNTH_NEG_ONE = 1, SYNTH_SMALL = 2, SYNTH_GENERAL = 3 };

#define SYNTH_SMALL_LIMIT (1u << 24) /* |s| below this is SYNTH_SMALL */

/* Class of one stored coefficient (v·R² mod r, 32 bytes LE, < r) on the
 * key's curve; *small receives s | sign << 31 for SYNTH_SMALL. */
enum synth_class synth_coef_class(enum curve_id curve, const uint8_t value[32], uint32_t *small);

/* out = v·R mod r, v's Montgomery form (32 bytes LE, < r), for the stored
 * value = v·R² mod r (32 bytes LE, < r) on the key's curve: one Montgomery
 * reduction (the index's general coefficients, synth_index.h). */
void synth_coef_montgomery(enum curve_id curve, const uint8_t value[32], uint8_t out[32]);

/* The same on each curve (synth_class_tmpl.h). */
enum synth_class bn254_synth_coef_class(const uint8_t value[32], uint32_t *small);
enum synth_class bls12381_synth_coef_class(const uint8_t value[32], uint32_t *small);
void bn254_synth_coef_montgomery(const uint8_t value[32], uint8_t out[32]);
void bls12381_synth_coef_montgomery(const uint8_t value[32], uint8_t out[32]);
/* cls[i] = class of coefs[i] (n entries) on each curve. */
void bn254_synth_classify(const struct zkey_coef *coefs, size_t n, uint8_t *cls);
void bls12381_synth_classify(const struct zkey_coef *coefs, size_t n, uint8_t *cls);

#endif
