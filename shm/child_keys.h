/*
 * child_keys.h — the key table every child (synthd, gpud) keeps: the keys
 * the supervisor sent with KEY_LOAD, by key id (< CTL_MAX_KEYS, defined once
 * in ctl.h). A snarkjs key is a read-only mapping of the .zkey (zkey_open);
 * a bellperson key (kind CTL_KEY_BELLPERSON) is its .params' layout
 * (bp_params_open, no point decoded here) and its cuzk PCE (bp_pce_open,
 * validated whole). Every format fills shape, the one thing the slot
 * layout, the witness checks and the proofs' public signals read.
 */
#ifndef SLOTPROVE_CHILD_KEYS_H
#define SLOTPROVE_CHILD_KEYS_H

#include <stdint.h>

#include "bellperson_params.h"
#include "bellperson_pce.h"
#include "ctl.h"
#include "err.h"
#include "key_shape.h"
#include "zkey.h"

struct child_key {
    int loaded;
    char name[256];            /* the name the supervisor gave it, for messages */
    uint32_t kind;             /* enum ctl_key_kind */
    struct key_shape shape;    /* every format's: the slot layout, the witness checks
                                  (common/key_shape.h) */
    struct zkey zk;            /* a zkey's mapping (zeroed for other formats) */
    char params_name[256], pce_name[256]; /* bellperson: the two files, for messages */
    struct bp_params params;   /* bellperson: the .params (layout, mapped) */
    struct bp_pce pce;         /* bellperson: the constraint file (mapped, checked) */
    void *prover_key;          /* bellperson: what gpud decoded (its own type; owned by gpud) */
};

/* KEY_LOAD: maps the key as key req->key_id, named req->text, replacing a
 * key loaded under that id: a zkey from fds[0]; a bellperson key
 * (req->key_kind) from fds[0] (.params) and fds[1] (PCE), checked to
 * describe one circuit. nthreads for the PCE's checks (0 = all). The caller
 * closes the fds afterwards. 0, or -EINVAL (id out of range, fds missing) /
 * the reader's code, with the reason in e. */
int child_key_load(struct child_key tab[CTL_MAX_KEYS], const struct ctl_msg *req,
                   const int *fds, int nfds, unsigned nthreads, struct sp_err *e);

/* The descriptors a KEY_LOAD of this kind carries for the key itself (a
 * zkey 1: the .zkey; bellperson 2: .params and PCE); 0 for an unknown kind.
 * Any after them are the child's own (synthd: a shared index). */
int child_key_nfds(uint32_t kind);

/* KEY_DROP: unmaps key id if loaded (the caller freed prover_key). */
void child_key_drop(struct child_key tab[CTL_MAX_KEYS], uint32_t id);

/* Key id if loaded, else NULL. */
const struct child_key *child_key_get(const struct child_key tab[CTL_MAX_KEYS], uint32_t id);

#endif
