/*
 * key_format.h — what gpud does per key format besides proving (which each
 * backend does in its own row, backend.h's backend_format): the decoding
 * at KEY_LOAD and the proof's self-check against the format's own vk. One
 * row per enum ctl_key_kind (gpud/README.md "Adding a key format"):
 *   zkey        nothing decoded (the .zkey stays mapped, child_keys.h);
 *               the check: the pairing check against the zkey's vk
 *               (proof_self_check, common/self_check.h);
 *   bellperson  the .params' points decoded (bellperson_key.h); the check:
 *               groth16_verify against the .params' vk.
 *
 *   key_format(k)   k's row (k loaded: child_key_load accepted its kind).
 *   ->load(k, fds, nfds, e)   optional: decodes k->prover_key from the
 *                   KEY_LOAD's descriptors (fds[0] the key file); 0 or the
 *                   decoding error naming the file; -ENOMEM.
 *   ->free(k)       optional: frees k->prover_key.
 *   ->check(k, pub, proof, ns, e)
 *                   pub: k->shape.n_public × 32 bytes (Fr, standard form);
 *                   *ns the check's time. 0, or -SP_EVERIFY with the reason
 *                   (a witness that does not satisfy the circuit).
 */
#ifndef SLOTPROVE_GPUD_KEY_FORMAT_H
#define SLOTPROVE_GPUD_KEY_FORMAT_H

#include <stdint.h>

#include "child_keys.h"
#include "err.h"
#include "proof.h"

struct key_format {
    int (*load)(struct child_key *k, const int *fds, int nfds, struct sp_err *e);
    void (*free)(struct child_key *k);
    int (*check)(const struct child_key *k, const uint8_t *pub,
                 const struct groth16_proof *proof, uint64_t *ns, struct sp_err *e);
};

const struct key_format *key_format(const struct child_key *k);

#endif
