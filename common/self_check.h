/*
 * self_check.h — the check gpud applies to every proof it makes before the
 * proof leaves the process (issue: no invalid proof is ever returned).
 */
#ifndef SLOTPROVE_SELF_CHECK_H
#define SLOTPROVE_SELF_CHECK_H

#include <stdint.h>

#include "err.h"
#include "proof.h"
#include "zkey.h"

/*
 * Verifies proof p, just made from zk for the public signals pub
 * (zk->n_public values of 32 bytes, standard form LE: witness[1..nPublic]),
 * against the key's own alpha1, beta2, gamma2, delta2 and IC: three Miller
 * loops and one final exponentiation, with e(alpha1, beta2) computed once
 * per distinct (alpha1, beta2) and kept (a small cache keyed by the points'
 * bytes, so a reloaded or different key can never reuse a stale value).
 * *ns (optional) gets the time taken.
 *
 * Returns 0, or -SP_EVERIFY with "the witness does not satisfy the circuit
 * (its proof fails the pairing check against PATH)". Why a failing check
 * means exactly that, for the CPU backend: the key has no C matrix (see
 * DESIGN), so synthd takes c = a∘b (a = A·w, b = B·w) and H = (AB − C)/Z
 * is always a polynomial; but the key's C-section points carry the
 * circuit's real C polynomials, so the pairing equation reduces to
 * C_from_a∘b(τ) = C_circuit·w(τ) at the key's secret τ. It holds when
 * a∘b = C·w on every constraint (a satisfying witness) and otherwise fails
 * except with probability about n/r (τ is unknown to whoever chose the
 * witness: Groth16's soundness). Nothing else makes an honest prover's
 * proof fail: the key's points were checked at load (zkey_check_points) and
 * the prover computes snarkjs's proof (tests/e2e.sh, tests/verify.sh). A GPU
 * backend must prove once more on the CPU before reporting an unsatisfied
 * witness, since a fault there fails the check too.
 */
int proof_self_check(const struct zkey *zk, const uint8_t *pub,
                     const struct groth16_proof *p, uint64_t *ns, struct sp_err *e);

#endif
