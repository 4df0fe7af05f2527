/*
 * keys.c — the daemon's key cache.
 *
 * Keys are identified by the SHA-256 of their content, not by name: two
 * submissions of the same file share one entry (and the children's mapped
 * copy), and two different files with the same name never do. Each entry
 * keeps the descriptor so a restarted child can load it again, and a header
 * view (zkey_open) for validation and slot sizing. Preloaded keys (--key
 * NAME=PATH) are also found by NAME.
 */
#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "zkey_check.h"

static void hash_map(const struct zkey *zk, uint8_t out[32])
{
    SHA2_CTX c;
    SHA256Init(&c);
    for (size_t off = 0; off < zk->map_len; off += 1 << 24) {
        size_t n = zk->map_len - off < (1u << 24) ? zk->map_len - off : (1u << 24);
        SHA256Update(&c, zk->map + off, n);
    }
    SHA256Final(out, &c);
}

/*
 * When the table is full, forgets the least recently used key that is not
 * preloaded and not used by a running job: the children drop their mappings
 * (KEY_DROP) and the descriptor is closed. A later submission of the same
 * key simply loads it again.
 */
/* Drops the least recently used key that is neither preloaded nor used by
 * a running job, from every process. With only_when_full, only when the
 * table has no free entry. Returns 1 when one was dropped. */
static int keys_evict_lru(struct daemon *d, int only_when_full, const char *why)
{
    uint32_t victim = MAX_KEYS;
    for (uint32_t i = 0; i < MAX_KEYS; i++) {
        if (!d->keys[i].used) {
            if (only_when_full)
                return 0; /* room left */
            continue;
        }
        if (d->keys[i].preloaded)
            continue;
        int busy = 0;
        for (struct job *j = d->jobs; j && !busy; j = j->next)
            busy = j->key_id == i && j->state == JOB_RUNNING;
        if (!busy && (victim == MAX_KEYS || d->keys[i].last_used_ns < d->keys[victim].last_used_ns))
            victim = i;
    }
    if (victim == MAX_KEYS)
        return 0;
    static struct ctl_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CTL_KEY_DROP;
    m.key_id = victim;
    for (unsigned i = 0; i < d->nkids; i++) {
        struct kid *k = &d->kids[i];
        if (k->alive && (k->keys_sent & (1ull << victim)))
            ctl_send(k->p.ctl, &m, NULL, 0);
        k->keys_sent &= ~(1ull << victim);
        k->keys_loaded &= ~(1ull << victim);
    }
    struct key_entry *k = &d->keys[victim];
    daemon_log("%s: dropped %s", why, k->name);
    zkey_close(&k->zk);
    close(k->fd);
    memset(k, 0, sizeof(*k));
    return 1;
}

/* Bytes of client-attached keys (sealed memfd copies) held now. */
static uint64_t client_key_bytes(const struct daemon *d)
{
    uint64_t held = 0;
    for (uint32_t i = 0; i < MAX_KEYS; i++)
        if (d->keys[i].used && !d->keys[i].preloaded)
            held += d->keys[i].zk.map_len;
    return held;
}

static int add_key(struct daemon *d, int fd, const char *name, int preloaded, uint32_t *key_id,
                   char *err, size_t errlen)
{
    struct sp_err e = { "" };
    struct zkey zk;
    uint8_t h[32];

    if (zkey_open(&zk, fd, name, &e) < 0) {
        snprintf(err, errlen, "%s", e.msg);
        return -1;
    }
    hash_map(&zk, h);
    for (uint32_t i = 0; i < MAX_KEYS; i++)
        if (d->keys[i].used && memcmp(d->keys[i].hash, h, 32) == 0) {
            zkey_close(&zk);
            close(fd);
            d->keys[i].last_used_ns = now_ns();
            if (preloaded) {
                d->keys[i].preloaded = 1;
                snprintf(d->keys[i].name, sizeof(d->keys[i].name), "%s", name);
            }
            *key_id = i;
            return 0;
        }
    uint64_t need = zkey_slot_payload_bytes(&zk);
    if (d->pool.slot_bytes && need > d->pool.slot_bytes) {
        snprintf(err, errlen, "%s: needs %llu-byte slots but the pool's are %llu bytes "
                 "(start serve with a larger --slot-bytes)", name, (unsigned long long)need,
                 (unsigned long long)d->pool.slot_bytes);
        zkey_close(&zk);
        return -1;
    }
    uint64_t t0 = now_ns(), npts = 0;
    if (zkey_check_points(&zk, d->o.threads, &npts, &e) < 0) { /* every point on its curve */
        snprintf(err, errlen, "%s", e.msg);
        zkey_close(&zk);
        return -1;
    }
    daemon_log("key %s: %llu points on their curves, checked in %.3f ms", name,
               (unsigned long long)npts, (now_ns() - t0) / 1e6);
    if (!preloaded)
        keys_evict_lru(d, 1, "key cache full"); /* keep a free entry if an idle one can go */
    for (uint32_t i = 0; i < MAX_KEYS; i++) {
        struct key_entry *k = &d->keys[i];
        if (k->used)
            continue;
        memset(k, 0, sizeof(*k));
        k->used = 1;
        k->fd = fd;
        k->zk = zk;
        k->preloaded = preloaded;
        k->last_used_ns = now_ns();
        memcpy(k->hash, h, 32);
        snprintf(k->name, sizeof(k->name), "%s", name);
        k->zk.path = k->name;
        *key_id = i;
        return 0;
    }
    zkey_close(&zk);
    snprintf(err, errlen, "%s: the daemon holds %d distinct keys, all in use by running jobs "
             "or preloaded", name, MAX_KEYS);
    return -1;
}

int keys_preload(struct daemon *d, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char name[REQUEST_NAME_MAX + 1];
    uint32_t id;
    if (!eq || eq == arg || (size_t)(eq - arg) > REQUEST_NAME_MAX || !eq[1]) {
        snprintf(err, errlen, "--key %s: expected NAME=PATH.zkey", arg);
        return -1;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    int fd = open(eq + 1, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", eq + 1, strerror(errno));
        return -1;
    }
    if (add_key(d, fd, eq + 1, 1, &id, err, errlen) < 0) {
        close(fd);
        return -1;
    }
    /* found by NAME; messages name the file */
    snprintf(d->keys[id].name, sizeof(d->keys[id].name), "%s", eq + 1);
    for (uint32_t i = 0; i < MAX_KEYS; i++)
        if (d->keys[i].used && i != id && strcmp(d->keys[i].name, name) == 0) {
            snprintf(err, errlen, "--key %s: name used twice", name);
            return -1;
        }
    snprintf(d->key_alias[id], sizeof(d->key_alias[id]), "%s", name);
    return 0;
}

/*
 * A client's key is copied into a sealed memfd before it is validated,
 * hashed and mapped: the client keeps its own file and could truncate it
 * (every process mapping it would take SIGBUS) or rewrite it after it was
 * hashed (poisoning the cache entry other jobs share). Large keys are better
 * preloaded with --key, which maps the operator's file in place.
 */
static int sealed_copy(int fd, const char *name, uint64_t max_bytes, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", name);
        return -1;
    }
    /* copying and hashing run in the supervisor's loop: keep them short */
    if ((uint64_t)st.st_size > max_bytes) {
        snprintf(err, errlen, "%s: %.1f MiB is above --max-job-key %.1f MiB; preload large keys "
                 "with serve --key NAME=PATH", name, st.st_size / 1048576.0,
                 max_bytes / 1048576.0);
        return -1;
    }
    int m = memfd_create("slotprove-zkey", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m < 0) {
        snprintf(err, errlen, "%s: memfd_create: %s", name, strerror(errno));
        return -1;
    }
    off_t off = 0;
    while (off < st.st_size) {
        ssize_t n = sendfile(m, fd, &off, (size_t)(st.st_size - off));
        if (n <= 0) {
            snprintf(err, errlen, "%s: copying the key: %s", name,
                     n < 0 ? strerror(errno) : "file shrank while being read");
            close(m);
            return -1;
        }
    }
    if (fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        snprintf(err, errlen, "%s: sealing the key copy: %s", name, strerror(errno));
        close(m);
        return -1;
    }
    return m;
}

int keys_from_fd(struct daemon *d, int fd, const char *name, uint32_t *key_id, char *err,
                 size_t errlen)
{
    struct stat st;
    uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    /* client keys together stay within --key-cache-max: idle ones make room */
    while (client_key_bytes(d) + size > d->o.key_cache_max &&
           keys_evict_lru(d, 0, "--key-cache-max reached"))
        ;
    if (size <= d->o.max_job_key && client_key_bytes(d) + size > d->o.key_cache_max) {
        snprintf(err, errlen, "%s: key cache full: running jobs hold %.1f MiB of client keys and "
                 "this one (%.1f MiB) would pass --key-cache-max %.1f MiB; retry when they end, "
                 "or preload it with serve --key NAME=PATH", name,
                 client_key_bytes(d) / 1048576.0, size / 1048576.0,
                 d->o.key_cache_max / 1048576.0);
        close(fd);
        return -1;
    }
    int m = sealed_copy(fd, name, d->o.max_job_key, err, errlen);
    close(fd);
    if (m < 0)
        return -1;
    int rc = add_key(d, m, name, 0, key_id, err, errlen);
    if (rc < 0)
        close(m);
    return rc;
}

int keys_lookup(struct daemon *d, const char *name, uint32_t *key_id)
{
    for (uint32_t i = 0; i < MAX_KEYS; i++)
        if (d->keys[i].used && d->keys[i].preloaded && strcmp(d->key_alias[i], name) == 0) {
            *key_id = i;
            return 0;
        }
    return -1;
}

uint64_t keys_max_slot_bytes(const struct daemon *d)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < MAX_KEYS; i++)
        if (d->keys[i].used && zkey_slot_payload_bytes(&d->keys[i].zk) > m)
            m = zkey_slot_payload_bytes(&d->keys[i].zk);
    return m;
}
