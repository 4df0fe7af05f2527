/* The supervisor's key cache (keys.h), reached only through the daemon in
 * the shell suites: preloaded keys by NAME, the cache key (SHA-256 of the
 * file, checked against sha256sum), one entry for one content, client keys
 * as sealed copies with their size limit, the slot-size check, and eviction
 * (least recently used, never a preloaded or busy key; -ENOSPC when nothing
 * can go). Keys are the bundled fixtures. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "keys.h"
#include "keys_preload.h"
#include "log.h"
#include "payload.h"

static void quiet(void)
{
    log_setup("test", 0, LOG_WARN, 1);
}

TestSuite(keys, .init = quiet, .timeout = 60);

#define FIX "tests/fixtures/bn128/"

static void drop_all(struct key_cache *kc)
{
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (kc->keys[i].used) {
            zkey_close(&kc->keys[i].zk);
            close(kc->keys[i].fd);
            kc->keys[i].used = 0;
        }
}

/* The file's SHA-256 as sha256sum (coreutils) computes it. */
static void sha256sum(const char *path, uint8_t out[32])
{
    char cmd[256], hex[65];
    snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_eq(fscanf(p, "%64s", hex), 1);
    pclose(p);
    for (int i = 0; i < 32; i++) {
        unsigned v;
        cr_assert_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

static int count_used(const struct key_cache *kc)
{
    int n = 0;
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        n += kc->keys[i].used;
    return n;
}

/* A client's key: prepared (sealed copy, checked, hashed) and inserted. */
static int client_key(struct key_cache *kc, const char *path, uint64_t busy, uint32_t *id,
                      uint32_t *evicted, struct sp_err *e)
{
    struct key_prep p;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0, "%s", path);
    int rc = keys_prepare(fd, path, 1ull << 30, kc->hash_keys, &p, e);
    if (rc < 0)
        return rc;
    return keys_insert(kc, &p, path, busy, id, evicted, e);
}

Test(keys, preload_by_name_and_hash)
{
    static struct key_cache kc = { .hash_keys = 1, .max_job_key = 1ull << 30 };
    struct sp_err e;
    uint32_t id, id2, ev;
    cr_assert_eq(keys_preload(&kc, "chain=" FIX "chain.zkey", &e), 0, "%s", e.msg);
    cr_assert_eq(keys_lookup(&kc, "chain", &id), 0);
    cr_assert_eq(keys_lookup(&kc, "nopub", &id2), -ENOENT);
    const struct key_entry *k = &kc.keys[id];
    cr_assert(k->used && k->preloaded);
    cr_assert_str_eq(k->alias, "chain");
    cr_assert_str_eq(k->name, FIX "chain.zkey", "messages name the file");
    uint8_t want[32];
    sha256sum(FIX "chain.zkey", want);
    cr_assert_eq(memcmp(k->hash, want, 32), 0, "the cache key is not the file's SHA-256");
    cr_assert_gt(k->check_points, 0, "every point checked at load");

    /* a client attaching the same content gets the same entry */
    cr_assert_eq(client_key(&kc, FIX "chain.zkey", 0, &id2, &ev, &e), 0, "%s", e.msg);
    cr_assert_eq(id2, id);
    cr_assert_eq(ev, CTL_MAX_KEYS);
    cr_assert_eq(count_used(&kc), 1);
    cr_assert_eq(keys_client_bytes(&kc), 0, "a preloaded key is the operator's file");

    /* another content: another entry, held as a client copy */
    cr_assert_eq(client_key(&kc, FIX "nopub.zkey", 0, &id2, &ev, &e), 0, "%s", e.msg);
    cr_assert_neq(id2, id);
    struct stat st;
    cr_assert_eq(stat(FIX "nopub.zkey", &st), 0);
    cr_assert_eq(keys_client_bytes(&kc), (uint64_t)st.st_size);
    uint64_t a = payload_layout(kc.keys[id].zk.domain_size, kc.keys[id].zk.n_vars).total;
    uint64_t b = payload_layout(kc.keys[id2].zk.domain_size, kc.keys[id2].zk.n_vars).total;
    cr_assert_eq(keys_max_slot_bytes(&kc), a > b ? a : b);
    cr_assert_gt(a, b, "chain needs larger slots than nopub");
    drop_all(&kc);
}

Test(keys, bad_arguments_and_limits_name_the_file)
{
    static struct key_cache kc = { .hash_keys = 1 };
    struct sp_err e;
    uint32_t id, ev;
    cr_assert_eq(keys_preload(&kc, "noequals", &e), -EINVAL);
    cr_assert_not_null(strstr(e.msg, "NAME=PATH"), "%s", e.msg);
    cr_assert_eq(keys_preload(&kc, "=x.zkey", &e), -EINVAL);
    cr_assert_eq(keys_preload(&kc, "k=", &e), -EINVAL);
    cr_assert_lt(keys_preload(&kc, "k=/nonexistent/k.zkey", &e), 0);
    cr_assert_not_null(strstr(e.msg, "/nonexistent/k.zkey"), "%s", e.msg);
    cr_assert_lt(keys_preload(&kc, "k=" FIX "chain.wtns", &e), 0, "a witness is no key");
    cr_assert_not_null(strstr(e.msg, "chain.wtns"), "%s", e.msg);
    cr_assert_eq(keys_preload(&kc, "k=" FIX "nopub.zkey", &e), 0, "%s", e.msg);
    cr_assert_eq(keys_preload(&kc, "k=" FIX "allpub.zkey", &e), -EINVAL, "NAME twice");
    cr_assert_not_null(strstr(e.msg, "name used twice"), "%s", e.msg);
    drop_all(&kc);
    memset(&kc, 0, sizeof(kc));
    kc.hash_keys = 1;

    /* a client key above max_bytes is refused before it is copied */
    struct key_prep p;
    int fd = open(FIX "chain.zkey", O_RDONLY | O_CLOEXEC);
    cr_assert_eq(keys_prepare(fd, "chain.zkey", 1000, 1, &p, &e), -EFBIG);
    cr_assert_not_null(strstr(e.msg, "chain.zkey"), "%s", e.msg);
    close(fd);

    /* slots too small for the key */
    kc.slot_bytes = 4096;
    cr_assert_eq(client_key(&kc, FIX "nopub.zkey", 0, &id, &ev, &e), -SP_ESLOTSIZE);
    cr_assert_not_null(strstr(e.msg, "--slot-bytes"), "%s", e.msg);
    cr_assert_eq(count_used(&kc), 0);
    drop_all(&kc);
}

/* Without hashing (`prove`'s one key) every insert is its own entry: fill
 * the table with one small fixture and watch what goes. */
Test(keys, eviction_lru_never_preloaded_or_busy)
{
    static struct key_cache kc = { .hash_keys = 0 };
    struct sp_err e;
    uint32_t id, ev, pre;
    cr_assert_eq(keys_preload(&kc, "pre=" FIX "allpub.zkey", &e), 0, "%s", e.msg);
    cr_assert_eq(keys_lookup(&kc, "pre", &pre), 0);
    for (uint32_t i = 1; i < CTL_MAX_KEYS; i++) {
        cr_assert_eq(client_key(&kc, FIX "allpub.zkey", 0, &id, &ev, &e), 0, "%s", e.msg);
        cr_assert_eq(ev, CTL_MAX_KEYS, "key %u: evicted %u with room left", i, ev);
    }
    cr_assert_eq(count_used(&kc), CTL_MAX_KEYS);
    /* ages: the preloaded key oldest, then client key i aged i */
    kc.keys[pre].last_used_ns = 0;
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
        if (i != pre)
            kc.keys[i].last_used_ns = 1000 + i;
    uint32_t oldest = pre == 0 ? 1 : 0, second = oldest + 1 == pre ? oldest + 2 : oldest + 1;
    /* full: the least recently used idle client key goes, not the preloaded one */
    cr_assert_eq(client_key(&kc, FIX "allpub.zkey", 1ull << oldest, &id, &ev, &e), 0, "%s",
                 e.msg);
    cr_assert_eq(ev, second, "busy key %u must stay; evicted %u, want %u", oldest, ev, second);
    cr_assert_eq(id, second, "the new key takes the freed entry");
    cr_assert(kc.keys[pre].used);
    /* every client key busy: nothing can go */
    cr_assert_eq(client_key(&kc, FIX "allpub.zkey", ~0ull, &id, &ev, &e), -ENOSPC);
    cr_assert_not_null(strstr(e.msg, "allpub.zkey"), "%s", e.msg);
    cr_assert_eq(count_used(&kc), CTL_MAX_KEYS);
    /* keys_evict_idle: the oldest idle, also with room */
    cr_assert_eq(keys_evict_idle(&kc, 0, "test"), oldest);
    cr_assert_eq(count_used(&kc), CTL_MAX_KEYS - 1);
    cr_assert_eq(keys_evict_idle(&kc, ~0ull, "test"), CTL_MAX_KEYS);
    drop_all(&kc);
}
