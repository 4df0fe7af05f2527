/*
 * keygen_curve.h — the per-curve pieces of `slotprove keygen` (instances of
 * keygen_circuit_tmpl.h and keygen_qap_tmpl.h in keygen_bn254.c and
 * keygen_bls12381.c), declared here for keygen and the unit tests.
 *
 * For P = keygen_bn254 (FR = bn254_fr) and keygen_bls12381:
 *   struct P_term {signal, value}        one term of a row; value in Montgomery form
 *   P_emit_fn(ctx, row, rows, nterms)    receives constraint `row`: rows[m]
 *                                        holds nterms[m] terms of A (m = 0),
 *                                        B (1), C (2); nonzero return stops
 *   P_circuit(shape, rng, w, emit, ctx)  generates the circuit into emit and
 *                                        its witness into w (n_vars elements,
 *                                        Montgomery form); 0, -ENOMEM, or
 *                                        emit's return
 *   struct P_qap                         the domain and τ-dependent factors
 *   P_qap_init(q, tau, delta, log_n, shift)
 *                                        ω = 5^((r−1)/2^log_n), coset shift g
 *                                        (snarkjs's: ω_{2n}, or 25 at the
 *                                        2-adicity); -EDOM if τ is in the
 *                                        domain or the coset (τ^n = 1 or g^n)
 *   P_lagrange(q, out, first, count)     out[k] = L_i(τ) = (τ^n − 1)/n ·
 *                                        ω^i/(τ − ω^i), i = first + k
 *   P_h_bases(q, out, first, count)      out[k] = H_i scalar, i = first + k:
 *                                        (τ^n − 1)(τ^n − g^n) / ((g^n − 1)·n·g^n·δ)
 *                                        · x_i/(τ − x_i), x_i = g·ω^i
 * Both evaluations do one batch inversion per call (Montgomery's trick).
 *
 * Why the H scalars are right: the prover (snarkjs groth16_prove.js, and
 * ours) takes h_i = P(x_i) for P = A·B − C = H·Z, Z = X^n − 1, on the coset
 * x_i = g·ω^i, where Z(x_i) = g^n − 1. With L'_i the Lagrange basis of the
 * coset, L'_i(τ) = (τ^n − g^n)·x_i / (n·g^n·(τ − x_i)), and deg H < n:
 * Σ h_i·L'_i(τ)·Z(τ)/((g^n − 1)δ) = H(τ)·Z(τ)/δ, Groth16's h(τ)t(τ)/δ. For
 * g = ω_{2n} (g^n = −1) this is (τ^{2n} − 1)/(2n) · x_i/(τ − x_i) / δ =
 * L^{(2n)}_{2i+1}(τ)/δ, the odd-index 2n-domain Lagrange bases that
 * snarkjs's `zkey new` reads from the prepared ptau (writeHs).
 */
#ifndef SLOTPROVE_KEYGEN_CURVE_H
#define SLOTPROVE_KEYGEN_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "bls12381.h"
#include "bn254.h"
#include "keygen_circuit.h"
#include "keygen_types.h"

#define KEYGEN_CURVE_DECLARE(P, FR)                                              \
    struct P##_term {                                                            \
        uint32_t signal;                                                         \
        FR##_t value;                                                            \
    };                                                                           \
    typedef int (*P##_emit_fn)(void *ctx, uint32_t row,                          \
                               const struct P##_term *const rows[3],             \
                               const unsigned nterms[3]);                        \
    int P##_circuit(const struct keygen_shape *s, struct keygen_rng *g,          \
                    FR##_t *w, P##_emit_fn emit, void *ctx);                     \
    struct P##_qap {                                                             \
        unsigned log_n;                                                          \
        uint64_t n;                                                              \
        FR##_t tau, omega, shift;                                                \
        FR##_t lagrange_factor; /* (τ^n − 1)/n */                                \
        FR##_t h_factor;        /* (τ^n − 1)(τ^n − g^n)/((g^n − 1) n g^n δ) */   \
    };                                                                           \
    int P##_qap_init(struct P##_qap *q, const FR##_t *tau, const FR##_t *delta,  \
                     unsigned log_n, const FR##_t *shift);                       \
    int P##_lagrange(const struct P##_qap *q, FR##_t *out, uint64_t first,       \
                     size_t count);                                              \
    int P##_h_bases(const struct P##_qap *q, FR##_t *out, uint64_t first,        \
                    size_t count);

KEYGEN_CURVE_DECLARE(keygen_bn254, bn254_fr)
KEYGEN_CURVE_DECLARE(keygen_bls12381, bls12381_fr)

#endif
