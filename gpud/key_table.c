/* key_table.c — gpud's loaded keys (see key_table.h). */
#include "key_table.h"

#include <pthread.h>

#include "bellperson_key.h"
#include "send.h"
#include "state.h"

static struct child_key keys[CTL_MAX_KEYS];
static pthread_rwlock_t keys_lock;

void key_table_init(void)
{
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&keys_lock, &ra);
}

const struct child_key *key_table_get(uint32_t id)
{
    return child_key_get(keys, id);
}

void key_table_rdlock(void)
{
    pthread_rwlock_rdlock(&keys_lock);
}

void key_table_unlock(void)
{
    pthread_rwlock_unlock(&keys_lock);
}

/* called with the write side held */
static void drop_locked(uint32_t id)
{
    const struct child_key *k = child_key_get(keys, id);
    if (k && k->kind == CTL_KEY_ZKEY && gpud_backend.ops->key_drop)
        gpud_backend.ops->key_drop(&gpud_backend, &k->zk);
    if (k && k->kind == CTL_KEY_BELLPERSON)
        bellperson_key_free(&keys[id]);
    child_key_drop(keys, id);
}

void key_table_load(const struct ctl_msg *req, const int *fds, int nfds)
{
    struct sp_err e = { "" };
    pthread_rwlock_wrlock(&keys_lock);
    if (req->key_id < CTL_MAX_KEYS)
        drop_locked(req->key_id); /* a reload replaces it */
    int rc = child_key_load(keys, req, fds, nfds, gpud_backend.nthreads, &e);
    if (rc == 0 && req->key_kind == CTL_KEY_BELLPERSON &&
        (rc = bellperson_key_load(&keys[req->key_id], fds[0], &e)) < 0)
        drop_locked(req->key_id);
    else if (rc == 0 && req->key_kind == CTL_KEY_ZKEY && gpud_backend.ops->key_check) {
        const struct child_key *k = child_key_get(keys, req->key_id);
        if (k && (rc = gpud_backend.ops->key_check(&gpud_backend, &k->zk, &e)) < 0)
            drop_locked(req->key_id); /* too large for the device budget */
    }
    if (rc < 0)
        send_msg(CTL_KEY_ERR, 0, 0, req->key_id, rc, NULL, e.msg);
    else
        send_msg(CTL_KEY_OK, 0, 0, req->key_id, 0, NULL, NULL);
    pthread_rwlock_unlock(&keys_lock);
}

void key_table_drop(uint32_t id)
{
    pthread_rwlock_wrlock(&keys_lock);
    drop_locked(id);
    pthread_rwlock_unlock(&keys_lock);
}
