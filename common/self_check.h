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
 * means exactly that, for the CPU backend: the key's points were checked
 * at load (zkey_check_points), the prover computes snarkjs's proof
 * (tests/e2e.sh, tests/verify.sh), and its H = (A·w ∘ B·w − C·w)/Z is a
 * polynomial only when A·w ∘ B·w = C·w on every constraint; otherwise the
 * proof fails the pairing check (Groth16's soundness). The constraints
 * cannot be tested directly because the key has no C matrix (synthd derives
 * C·w from A and B, see DESIGN), so the failed pairing of an honest
 * prover's proof is the test. A GPU backend must prove once more on the CPU
 * before reporting an unsatisfied witness.
 */
int proof_self_check(const struct zkey *zk, const uint8_t *pub,
                     const struct groth16_proof *p, uint64_t *ns, struct sp_err *e);

#endif
