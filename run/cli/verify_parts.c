/*
 * verify_parts.c — every partition of a multi-partition job's proof and
 * public files checked (verify_parts.h).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16_json.h"
#include "verify_parts.h"

/* A multi-partition file: the public file's array of arrays (or an empty
 * array of none), the proof file's array of objects. */
static int is_multi(json_t *doc)
{
    return json_is_array(doc) && json_array_size(doc) > 0 &&
           (json_is_array(json_array_get(doc, 0)) || json_is_object(json_array_get(doc, 0)));
}

/* One partition: the checks verify makes of a lone proof. */
static int verify_one(const struct groth16_vk *vk, const char *vk_path, json_t *pub_doc,
                      json_t *proof_doc, const char *pub_name, const char *proof_name,
                      char *why, size_t why_len)
{
    struct sp_err e = { "" };
    struct groth16_proof p;
    uint8_t *pub = NULL;
    uint32_t n_pub = 0;
    const struct curve_info *ci = curve_get(vk->curve);
    int rc = groth16_public_from_json(&pub, &n_pub, pub_doc, pub_name, &e);
    if (rc == 0)
        rc = groth16_proof_from_json(&p, proof_doc, vk->curve, proof_name, &e);
    if (rc < 0) {
        snprintf(why, why_len, "%s", e.msg);
    } else if (p.curve != vk->curve) {
        snprintf(why, why_len, "%s: the proof is on %s but %s is a %s key", proof_name,
                 curve_get(p.curve)->name, vk_path, ci->name);
        rc = -SP_EMISMATCH;
    } else if (n_pub != vk->n_public) {
        snprintf(why, why_len, "%s: %u public signals, but %s expects %u", pub_name, n_pub,
                 vk_path, vk->n_public);
        rc = -SP_EMISMATCH;
    } else {
        for (uint32_t i = 0; i < n_pub && rc == 0; i++)
            if (!curve_scalar_below_r(ci, pub + 32 * (size_t)i)) {
                snprintf(why, why_len, "%s: public signal %u is not below r", pub_name, i);
                rc = -SP_ERANGE;
            }
        if (rc == 0 && (rc = groth16_verify(vk, pub, n_pub, &p, 1, &e)) < 0)
            snprintf(why, why_len, "%s: %s", proof_name, e.msg);
    }
    free(pub);
    return rc;
}

int verify_partitions(const struct groth16_vk *vk, const char *vk_path, const char *pub_path,
                      const char *proof_path, uint32_t *parts, char *why, size_t why_len)
{
    json_error_t je;
    json_t *pub = json_load_file(pub_path, JSON_REJECT_DUPLICATES, &je);
    json_t *proof = pub ? json_load_file(proof_path, JSON_REJECT_DUPLICATES, &je) : NULL;
    int rc = 1;
    *parts = 0;
    if (!pub || !proof || (!is_multi(pub) && !is_multi(proof)))
        goto out; /* one proof, or a file the single check names */
    size_t k = json_is_array(proof) ? json_array_size(proof) : 1;
    size_t kp = json_is_array(pub) ? json_array_size(pub) : 1;
    if (!is_multi(pub) || !is_multi(proof)) {
        const char *multi = is_multi(pub) ? pub_path : proof_path;
        const char *one = is_multi(pub) ? proof_path : pub_path;
        snprintf(why, why_len, "%s holds a %zu-partition job's %s, but %s one partition's: give "
                 "both files of the job (every partition is checked), or one partition's "
                 "element of each (jq '.[I]' FILE)", multi, is_multi(pub) ? kp : k,
                 is_multi(pub) ? "public signals" : "proofs", one);
        rc = -SP_EMISMATCH;
        goto out;
    }
    if (k != kp) {
        snprintf(why, why_len, "%s holds %zu partitions' proofs but %s %zu partitions' public "
                 "signals: not the files of one job", proof_path, k, pub_path, kp);
        rc = -SP_EMISMATCH;
        goto out;
    }
    for (size_t i = 0; i < k; i++) {
        char pn[300], fn[300];
        snprintf(pn, sizeof(pn), "%.240s: partition %zu of %zu", pub_path, i, k);
        snprintf(fn, sizeof(fn), "%.240s: partition %zu of %zu", proof_path, i, k);
        if ((rc = verify_one(vk, vk_path, json_array_get(pub, i), json_array_get(proof, i), pn,
                             fn, why, why_len)) < 0)
            goto out;
    }
    *parts = (uint32_t)k;
    rc = 0;
out:
    json_decref(pub);
    json_decref(proof);
    return rc;
}
