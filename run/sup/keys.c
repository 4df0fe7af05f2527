/*
 * keys.c — the key cache (keys.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"
#include "payload.h"
#include "log.h"
#include "proc.h"
#include "sealed_copy.h"
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
 * preloaded and not used by a running job: the descriptor is closed and the
 * caller tells the children to drop their mappings (KEY_DROP). A later
 * submission of the same key simply loads it again.
 */
uint32_t keys_evict_idle(struct key_cache *kc, uint64_t busy_keys, const char *why)
{
    uint32_t victim = CTL_MAX_KEYS;
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++) {
        const struct key_entry *k = &kc->keys[i];
        if (k->used && !k->preloaded && !(busy_keys >> i & 1) &&
            (victim == CTL_MAX_KEYS || k->last_used_ns < kc->keys[victim].last_used_ns))
            victim = i;
    }
    if (victim == CTL_MAX_KEYS)
        return victim;
    struct key_entry *k = &kc->keys[victim];
    sup_log(LOG_NOTE, "event=key_dropped|%s: dropped %s", why, k->name);
    zkey_close(&k->zk);
    close(k->fd);
    if (k->kind == CTL_KEY_BELLPERSON)
        close(k->pce_fd);
    if (k->has_synth_index)
        close(k->synth_index_fd);
    memset(k, 0, sizeof(*k));
    return victim;
}

/* Keeps a free entry: when the table is full, drops the least recently used
 * idle client key (keys_evict_idle). Returns its id, or CTL_MAX_KEYS. */
static uint32_t keys_evict_one(struct key_cache *kc, uint64_t busy_keys)
{
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (!kc->keys[i].used)
            return CTL_MAX_KEYS; /* room left */
    return keys_evict_idle(kc, busy_keys, "key cache full");
}

uint64_t keys_client_bytes(const struct key_cache *kc)
{
    uint64_t held = 0;
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (kc->keys[i].used && !kc->keys[i].preloaded)
            held += kc->keys[i].zk.map_len;
    return held;
}

/* Gives up a prepared key: its mapping and descriptors. */
static void prep_close(struct key_prep *p)
{
    zkey_close(&p->zk);
    close(p->fd);
    if (p->kind == CTL_KEY_BELLPERSON)
        close(p->pce_fd);
}

int keys_find_hash(const struct key_cache *kc, const uint8_t hash[32])
{
    for (uint32_t i = 0; i < CTL_MAX_KEYS && kc->hash_keys; i++)
        if (kc->keys[i].used && memcmp(kc->keys[i].hash, hash, 32) == 0)
            return (int)i;
    return -ENOENT;
}

/* The cache part of adding a key: dedupe by hash, check the slot size,
 * make room, insert. Consumes p (its memfd and mapping) on every path. */
static int insert_key(struct key_cache *kc, struct key_prep *p, const char *name, int preloaded,
                      uint64_t busy_keys, uint32_t *key_id, uint32_t *evicted, struct sp_err *e)
{
    *evicted = CTL_MAX_KEYS;
    for (uint32_t i = 0; i < CTL_MAX_KEYS && kc->hash_keys; i++)
        if (kc->keys[i].used && memcmp(kc->keys[i].hash, p->hash, 32) == 0) {
            prep_close(p);
            kc->keys[i].last_used_ns = now_ns();
            if (preloaded) {
                kc->keys[i].preloaded = 1;
                snprintf(kc->keys[i].name, sizeof(kc->keys[i].name), "%s", name);
            }
            *key_id = i;
            return 0;
        }
    uint64_t need = payload_layout(p->shape.domain_size, p->shape.n_vars).total;
    if (kc->slot_bytes && need > kc->slot_bytes) {
        sp_fail(e, -SP_ESLOTSIZE, "%s: needs %llu-byte slots but the pool's are %llu bytes "
                 "(start serve with a larger --slot-bytes)", name, (unsigned long long)need,
                 (unsigned long long)kc->slot_bytes);
        prep_close(p);
        return -SP_ESLOTSIZE;
    }
    if (!preloaded)
        *evicted = keys_evict_one(kc, busy_keys); /* keep a free entry if an idle one can go */
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++) {
        struct key_entry *k = &kc->keys[i];
        if (k->used)
            continue;
        memset(k, 0, sizeof(*k));
        static uint64_t load_seq;
        k->used = 1;
        k->load_seq = ++load_seq;
        k->fd = p->fd;
        k->kind = p->kind;
        k->pce_fd = p->kind == CTL_KEY_BELLPERSON ? p->pce_fd : -1;
        k->zk = p->zk;
        k->shape = p->shape;
        k->preloaded = preloaded;
        k->last_used_ns = now_ns();
        k->check_ns = p->check_ns;
        k->check_points = p->check_points;
        memcpy(k->hash, p->hash, 32);
        snprintf(k->name, sizeof(k->name), "%s", name);
        k->zk.path = k->shape.path = k->name;
        *key_id = i;
        return 0;
    }
    prep_close(p);
    return sp_fail(e, -ENOSPC, "%s: the daemon holds %d distinct keys, all in use by running "
                   "jobs or preloaded", name, CTL_MAX_KEYS);
}

/* Opens (and hashes, when asked) the key on fd. 0, or a code with e; fd is
 * the caller's either way. */
static int open_key(int fd, const char *name, int hash, struct key_prep *out, struct sp_err *e)
{
    int rc = zkey_open(&out->zk, fd, name, e);
    if (rc < 0)
        return rc;
    uint64_t t0 = now_ns(), npts = 0;
    if ((rc = zkey_check_points(&out->zk, 0, &npts, e)) < 0) { /* every point on its curve */
        zkey_close(&out->zk);
        return rc;
    }
    out->check_ns = now_ns() - t0;
    out->check_points = npts;
    sup_log(LOG_NOTE, "event=key_checked points=%llu ms=%.3f|key %s: %llu points on their curves, "
            "checked in %.3f ms", (unsigned long long)npts, out->check_ns / 1e6, name,
            (unsigned long long)npts, out->check_ns / 1e6);
    key_shape_of_zkey(&out->shape, &out->zk);
    out->fd = fd;
    out->kind = CTL_KEY_ZKEY;
    out->pce_fd = -1;
    memset(out->hash, 0, sizeof(out->hash));
    if (hash)
        hash_map(&out->zk, out->hash);
    return 0;
}

int keys_insert_alias(struct key_cache *kc, struct key_prep *p, const char *name,
                      const char *alias, uint32_t *key_id, struct sp_err *e)
{
    uint32_t id, evicted;
    int rc = insert_key(kc, p, name, 1, 0, &id, &evicted, e);
    if (rc < 0)
        return rc;
    /* found by alias; messages name the file */
    snprintf(kc->keys[id].name, sizeof(kc->keys[id].name), "%s", name);
    uint32_t other;
    if (keys_lookup(kc, alias, &other) == 0)
        return sp_fail(e, -EINVAL, "--key %s: name used twice", alias);
    if (!kc->keys[id].alias[0]) {
        snprintf(kc->keys[id].alias, sizeof(kc->keys[id].alias), "%s", alias);
    } else { /* the same files under another name */
        if (kc->n_more_aliases >= CTL_MAX_KEYS)
            return sp_fail(e, -ENOSPC, "--key %s: more than %d names for loaded keys", alias,
                           CTL_MAX_KEYS);
        struct key_alias *a = &kc->more_aliases[kc->n_more_aliases++];
        a->id = id;
        snprintf(a->name, sizeof a->name, "%s", alias);
    }
    *key_id = id;
    return 0;
}

int keys_add_fd(struct key_cache *kc, int fd, const char *name, const char *alias,
                uint32_t *key_id, struct sp_err *e)
{
    struct key_prep p;
    int rc = open_key(fd, name, kc->hash_keys, &p, e);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return keys_insert_alias(kc, &p, name, alias, key_id, e);
}

int keys_prepare(int fd, const char *name, uint64_t max_bytes, int hash, struct key_prep *out,
                 struct sp_err *e)
{
    /* validated, hashed and mapped from a sealed copy (sealed_copy.h says why);
     * large keys are better preloaded with --key, which maps the operator's
     * file in place */
    const struct sealed_copy_kind key = {
        .what = "a client key", .max_bytes = max_bytes, .too_big = -EFBIG,
        .limit = "--max-job-key", .advice = "; preload large keys with serve --key NAME=PATH",
    };
    int m = sealed_copy(fd, name, &key, e);
    close(fd);
    if (m < 0)
        return m;
    int rc = open_key(m, name, hash, out, e);
    if (rc < 0)
        close(m);
    return rc;
}

int keys_insert(struct key_cache *kc, struct key_prep *p, const char *name, uint64_t busy_keys,
                uint32_t *key_id, uint32_t *evicted, struct sp_err *e)
{
    return insert_key(kc, p, name, 0, busy_keys, key_id, evicted, e);
}

int keys_lookup(const struct key_cache *kc, const char *name, uint32_t *key_id)
{
    for (unsigned i = 0; i < kc->n_more_aliases; i++)
        if (strcmp(kc->more_aliases[i].name, name) == 0) {
            *key_id = kc->more_aliases[i].id;
            return 0;
        }
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (kc->keys[i].used && kc->keys[i].preloaded && strcmp(kc->keys[i].alias, name) == 0) {
            *key_id = i;
            return 0;
        }
    return -ENOENT;
}

uint64_t keys_max_slot_bytes(const struct key_cache *kc)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (kc->keys[i].used) {
            uint64_t b = payload_layout(kc->keys[i].shape.domain_size, kc->keys[i].shape.n_vars).total;
            m = b > m ? b : m;
        }
    return m;
}
