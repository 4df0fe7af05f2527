/*
 * keygen_circuit.h — the synthetic circuit's shape and its PRNG (keygen_circuit.c);
 * the values live in keygen_circuit_tmpl.h.
 */
#ifndef SLOTPROVE_KEYGEN_CIRCUIT_H
#define SLOTPROVE_KEYGEN_CIRCUIT_H

#include <stdint.h>

#include "err.h"
#include "keygen_types.h"

/* Kind of constraint i. */
enum keygen_kind keygen_kind(uint64_t i);

/* Terms in the A, B and C rows of a constraint of kind k. */
unsigned keygen_terms(enum keygen_kind k, unsigned matrix /* 0 A, 1 B, 2 C */);

/* Fills s for N constraints and K public inputs. 0, or -SP_ERANGE with the
 * reason in e (N = 0, domain above 2^KEYGEN_MAX_LOG_DOMAIN). */
int keygen_shape(struct keygen_shape *s, uint64_t n_constraints, uint64_t n_public,
                 struct sp_err *e);

/* Narrows s (from keygen_shape) to n_vars wires in all: the first
 * n_vars − 1 − K constraints make a wire each, the rest check earlier wires
 * (same kinds and term counts, the would-be wire's value a constant in C),
 * so a large domain can come with a smaller key. n_vars from
 * min(1 + K + 16, 1 + K + N) to 1 + K + N. 0, or -SP_ERANGE with the reason
 * in e. */
int keygen_shape_vars(struct keygen_shape *s, uint64_t n_vars, struct sp_err *e);

void keygen_rng_seed(struct keygen_rng *g, uint64_t seed);
uint64_t keygen_rng_next(struct keygen_rng *g);
/* Uniform in [0, m) by rejection (4 LE limbs, standard form). */
void keygen_rng_below(struct keygen_rng *g, uint64_t out[4], const uint64_t m[4]);

#endif
