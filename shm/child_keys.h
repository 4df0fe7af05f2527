/*
 * child_keys.h — the key table every child (synthd, gpud) keeps: the keys
 * the supervisor sent with KEY_LOAD, by key id (< CTL_MAX_KEYS, defined once
 * in ctl.h), each a read-only mapping of the .zkey (zkey_open).
 */
#ifndef SLOTPROVE_CHILD_KEYS_H
#define SLOTPROVE_CHILD_KEYS_H

#include <stdint.h>

#include "ctl.h"
#include "err.h"
#include "zkey.h"

struct child_key {
    int loaded;
    char name[256];            /* the name the supervisor gave it, for messages */
    struct zkey zk;
};

/* KEY_LOAD: maps the key on fd (the caller closes fd afterwards) as key
 * req->key_id, named req->text, replacing a key loaded under that id.
 * 0, or -EINVAL (id out of range) / zkey_open's code, with the reason in e. */
int child_key_load(struct child_key tab[CTL_MAX_KEYS], const struct ctl_msg *req, int fd,
                   struct sp_err *e);

/* KEY_DROP: unmaps key id if loaded. */
void child_key_drop(struct child_key tab[CTL_MAX_KEYS], uint32_t id);

/* Key id if loaded, else NULL. */
const struct child_key *child_key_get(const struct child_key tab[CTL_MAX_KEYS], uint32_t id);

#endif
