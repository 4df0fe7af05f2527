/*
 * key_shape.h — a proving key described by what the rest of slotprove sizes
 * and checks keys by, whatever its format: the slot layout (shm/payload.h:
 * domain size, wires), the witness checks (wtns_check_key: curve, wires),
 * the public signals (n_public) and the supervisor's figures. Every key
 * format fills one when it is loaded (shm/child_keys.c in the children,
 * run/sup/keys.c and keys_bellperson.c in the supervisor): a snarkjs zkey
 * from its header (key_shape_of_zkey), a bellperson key from its PCE
 * (bp_key_shape, common/bellperson_shape.h).
 */
#ifndef SLOTPROVE_KEY_SHAPE_H
#define SLOTPROVE_KEY_SHAPE_H

#include <stdint.h>

#include "curve.h"
#include "zkey.h"

struct key_shape {
    const char *path;     /* the key's name, for messages (not owned) */
    enum curve_id curve;
    uint32_t n_vars;      /* witness length, wire 0 = 1 */
    uint32_t n_public;    /* public signals, excluding wire 0 */
    uint32_t domain_size; /* n, a power of two: rows of a and b in a slot */
    unsigned log_domain;  /* log2 n */
    uint64_t n_coefs;     /* the synthesis's non-zero terms (its cost estimate) */
};

/* zk's header (zkey_open) as a shape; path = zk->path. */
void key_shape_of_zkey(struct key_shape *s, const struct zkey *zk);

#endif
