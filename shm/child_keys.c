/* child_keys.c — see child_keys.h. */
#include "child_keys.h"

#include <errno.h>
#include <stdio.h>

int child_key_load(struct child_key tab[CTL_MAX_KEYS], const struct ctl_msg *req, int fd,
                   struct sp_err *e)
{
    if (req->key_id >= CTL_MAX_KEYS)
        return sp_fail(e, -EINVAL, "key id %u out of range (< %d)", req->key_id, CTL_MAX_KEYS);
    struct child_key *k = &tab[req->key_id];
    child_key_drop(tab, req->key_id);
    snprintf(k->name, sizeof(k->name), "%.255s", req->text);
    int rc = zkey_open(&k->zk, fd, k->name, e);
    if (rc < 0)
        return rc;
    k->loaded = 1;
    return 0;
}

void child_key_drop(struct child_key tab[CTL_MAX_KEYS], uint32_t id)
{
    if (id < CTL_MAX_KEYS && tab[id].loaded) {
        zkey_close(&tab[id].zk);
        tab[id].loaded = 0;
    }
}

const struct child_key *child_key_get(const struct child_key tab[CTL_MAX_KEYS], uint32_t id)
{
    return id < CTL_MAX_KEYS && tab[id].loaded ? &tab[id] : NULL;
}
