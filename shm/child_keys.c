/* child_keys.c — see child_keys.h. */
#include "child_keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bellperson_shape.h"

static int load_bellperson(struct child_key *k, int params_fd, int pce_fd, unsigned nthreads,
                           struct sp_err *e)
{
    /* the supervisor names the pair "P.params:C.pce"; messages name each file */
    const char *colon = strrchr(k->name, ':');
    int plen = colon ? (int)(colon - k->name) : (int)strlen(k->name);
    snprintf(k->params_name, sizeof k->params_name, "%.*s", plen, k->name);
    snprintf(k->pce_name, sizeof k->pce_name, "%s", colon ? colon + 1 : k->name);
    int rc = bp_params_open(&k->params, params_fd, k->params_name, 0, e);
    if (rc < 0)
        return rc;
    if ((rc = bp_pce_open(&k->pce, pce_fd, k->pce_name, nthreads, e)) < 0) {
        bp_params_close(&k->params);
        return rc;
    }
    if ((rc = bp_params_match_pce(&k->params, &k->pce, e)) < 0 ||
        (rc = bp_key_shape(&k->shape, &k->pce, k->name, e)) < 0) {
        bp_pce_close(&k->pce);
        bp_params_close(&k->params);
        return rc;
    }
    return 0;
}

int child_key_nfds(uint32_t kind)
{
    static const int nfds[CTL_KEY_KINDS] = { [CTL_KEY_ZKEY] = 1, [CTL_KEY_BELLPERSON] = 2 };
    return kind < CTL_KEY_KINDS ? nfds[kind] : 0;
}

int child_key_load(struct child_key tab[CTL_MAX_KEYS], const struct ctl_msg *req,
                   const int *fds, int nfds, unsigned nthreads, struct sp_err *e)
{
    if (req->key_id >= CTL_MAX_KEYS)
        return sp_fail(e, -EINVAL, "key id %u out of range (< %d)", req->key_id, CTL_MAX_KEYS);
    struct child_key *k = &tab[req->key_id];
    child_key_drop(tab, req->key_id);
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof(k->name), "%.255s", req->text);
    k->kind = req->key_kind;
    int rc;
    if (k->kind == CTL_KEY_BELLPERSON) {
        if (nfds < 2)
            return sp_fail(e, -EINVAL, "%s: KEY_LOAD of a bellperson key without its PCE",
                           k->name);
        rc = load_bellperson(k, fds[0], fds[1], nthreads, e);
    } else if (k->kind == CTL_KEY_ZKEY) {
        if (nfds < 1)
            return sp_fail(e, -EINVAL, "KEY_LOAD without a key descriptor");
        if ((rc = zkey_open(&k->zk, fds[0], k->name, e)) == 0)
            key_shape_of_zkey(&k->shape, &k->zk);
    } else {
        return sp_fail(e, -EINVAL, "%s: KEY_LOAD of unknown kind %u", k->name, k->kind);
    }
    if (rc < 0)
        return rc;
    k->loaded = 1;
    return 0;
}

void child_key_drop(struct child_key tab[CTL_MAX_KEYS], uint32_t id)
{
    if (id < CTL_MAX_KEYS && tab[id].loaded) {
        zkey_close(&tab[id].zk);
        if (tab[id].kind == CTL_KEY_BELLPERSON) {
            bp_pce_close(&tab[id].pce);
            bp_params_close(&tab[id].params);
        }
        tab[id].loaded = 0;
    }
}

const struct child_key *child_key_get(const struct child_key tab[CTL_MAX_KEYS], uint32_t id)
{
    return id < CTL_MAX_KEYS && tab[id].loaded ? &tab[id] : NULL;
}
