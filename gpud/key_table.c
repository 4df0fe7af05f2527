/* key_table.c — gpud's loaded keys (see key_table.h). */
#include "key_table.h"

#include <pthread.h>

#include "key_format.h"
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

/* called with the write side held: the backend forgets the key, gpud's
 * decoding is freed, then it is unmapped */
static void drop_locked(uint32_t id)
{
    const struct child_key *k = child_key_get(keys, id);
    if (k) {
        const struct backend_format *f = backend_format(&gpud_backend, k);
        if (f && f->key_drop)
            f->key_drop(&gpud_backend, k);
        if (key_format(k)->free)
            key_format(k)->free(&keys[id]);
    }
    child_key_drop(keys, id);
}

void key_table_load(const struct ctl_msg *req, const int *fds, int nfds)
{
    struct sp_err e = { "" };
    pthread_rwlock_wrlock(&keys_lock);
    if (req->key_id < CTL_MAX_KEYS)
        drop_locked(req->key_id); /* a reload replaces it */
    int rc = child_key_load(keys, req, fds, nfds, gpud_backend.nthreads, &e);
    if (rc == 0) {
        struct child_key *k = &keys[req->key_id];
        const struct backend_format *f = backend_format(&gpud_backend, k);
        if (!f)
            rc = sp_fail(&e, -SP_EUNSUPPORTED, "%s: the %s backend proves no key of this format",
                         k->name, gpud_backend.ops->name);
        if (rc == 0 && key_format(k)->load)
            rc = key_format(k)->load(k, fds, nfds, &e); /* the points decoded */
        if (rc == 0 && f->key_check)
            rc = f->key_check(&gpud_backend, k, &e); /* too large for the device budget */
        if (rc < 0)
            drop_locked(req->key_id);
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
