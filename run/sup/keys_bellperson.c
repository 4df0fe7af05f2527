/*
 * keys_bellperson.c — a bellperson key (.params + cuzk PCE) into the
 * supervisor's key cache (keys.h): the checked-params cache.
 *
 * Checking every point of a .params in its subgroup is the expensive part
 * of loading one (common/bellperson_params.h: ~12 core-hours for
 * Filecoin's PoRep file; hashing it is a minute). So the pair is hashed
 * first, and a pair the cache already holds is not checked again; the
 * children (synthd: the PCE; gpud: the points, decoded) load it without
 * the subgroup tests, also when they are restarted. The supervisor keeps
 * neither mapping, only the descriptors and the key's shape.
 */
#include <errno.h>
#include <sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bellperson_shape.h"
#include "keys.h"
#include "keys_bellperson.h"
#include "log.h"
#include "proc.h"

static void hash_update(SHA2_CTX *c, const uint8_t *p, size_t len)
{
    for (size_t off = 0; off < len; off += 1 << 24)
        SHA256Update(c, p + off, len - off < (1u << 24) ? len - off : (1u << 24));
}

/* SHA-256 of "bellperson\0" ‖ .params ‖ PCE: never a zkey's hash. */
static void hash_pair(const struct bp_params *k, const struct bp_pce *p, uint8_t out[32])
{
    static const char tag[] = "bellperson";
    SHA2_CTX c;
    SHA256Init(&c);
    SHA256Update(&c, (const uint8_t *)tag, sizeof tag);
    hash_update(&c, k->map, k->len);
    hash_update(&c, p->map, p->len);
    SHA256Final(out, &c);
}

int keys_add_bellperson(struct key_cache *kc, int params_fd, int pce_fd, const char *params_path,
                        const char *pce_path, const char *alias, unsigned nthreads,
                        int subgroup, uint32_t *key_id, struct sp_err *e)
{
    struct bp_params params;
    struct bp_pce pce;
    struct key_prep p;
    char name[JOB_NAME_MAX + 1];
    int rc, have_params = 0, have_pce = 0;

    memset(&p, 0, sizeof p);
    if ((size_t)snprintf(name, sizeof name, "%s:%s", params_path, pce_path) >= sizeof name) {
        rc = sp_fail(e, -ENAMETOOLONG, "--key %s: the two paths are longer than %d bytes",
                     alias, JOB_NAME_MAX);
        goto fail;
    }
    if ((rc = bp_params_open(&params, params_fd, params_path, 0, e)) < 0)
        goto fail;
    have_params = 1;
    if ((rc = bp_pce_open(&pce, pce_fd, pce_path, nthreads, e)) < 0)
        goto fail;
    have_pce = 1;
    if ((rc = bp_params_match_pce(&params, &pce, e)) < 0 ||
        (rc = bp_key_shape(&p.shape, &pce, name, e)) < 0)
        goto fail;
    if (kc->hash_keys)
        hash_pair(&params, &pce, p.hash);
    if (keys_find_hash(kc, p.hash) < 0) {
        uint64_t t0 = now_ns(), npts = 0;
        if ((rc = bp_params_check(&params, subgroup, nthreads, &npts, e)) < 0)
            goto fail;
        p.check_ns = now_ns() - t0;
        p.check_points = npts;
        sup_log(LOG_NOTE, "key %s: %llu points on their curves%s, checked in %.3f s",
                params_path, (unsigned long long)npts,
                subgroup ? " and in their subgroups" : " (subgroups not tested)",
                p.check_ns / 1e9);
    } else {
        sup_log(LOG_NOTE, "key %s: the same files as a key already checked (SHA-256)", name);
    }
    bp_pce_close(&pce);
    bp_params_close(&params);
    p.kind = CTL_KEY_BELLPERSON;
    p.fd = params_fd;
    p.pce_fd = pce_fd;
    return keys_insert_alias(kc, &p, name, alias, key_id, e);
fail:
    if (have_pce)
        bp_pce_close(&pce);
    if (have_params)
        bp_params_close(&params);
    close(params_fd);
    close(pce_fd);
    return rc;
}
