/* groth16_json.c — see groth16_json.h. Parsed with jansson, numbers with GMP. */
#include "groth16_json.h"

#include <errno.h>
#include <gmp.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *load(const char *path, struct sp_err *e, int *rc)
{
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        *rc = sp_fail(e, SP_EFORMAT, "%s: not valid JSON: %s (line %d)", path, je.text,
                      je.line);
    return doc;
}

/* Decimal string j -> n LE u64 limbs. -1 not a decimal string, -2 too big. */
static int dec_limbs(json_t *j, uint64_t *l, size_t n)
{
    const char *s = json_is_string(j) ? json_string_value(j) : NULL;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return -1;
    mpz_t z;
    if (mpz_init_set_str(z, s, 10) != 0) {
        mpz_clear(z);
        return -1;
    }
    int rc = 0;
    if (mpz_sizeinbase(z, 2) > 64 * n)
        rc = -2;
    else {
        memset(l, 0, n * sizeof(uint64_t));
        mpz_export(l, NULL, -1, sizeof(uint64_t), 0, 0, z);
    }
    mpz_clear(z);
    return rc;
}

static int num(json_t *j, uint64_t l[6], const char *path, const char *what, struct sp_err *e)
{
    int rc = dec_limbs(j, l, 6);
    if (rc == -1)
        return sp_fail(e, SP_EFORMAT, "%s: %s: expected a decimal string", path, what);
    if (rc == -2)
        return sp_fail(e, SP_ERANGE, "%s: %s is not below q", path, what);
    return 0;
}

/* 1 if j is the string s. */
static int is_str(json_t *j, const char *s)
{
    return json_is_string(j) && strcmp(json_string_value(j), s) == 0;
}

/* [x, y, z] G1 point -> standard-form limbs; *inf set for z "0". */
static int g1(json_t *j, uint64_t xy[2][6], int *inf, const char *path, const char *what,
              struct sp_err *e)
{
    char w[96];
    int rc;
    if (!json_is_array(j) || json_array_size(j) != 3)
        return sp_fail(e, SP_EFORMAT, "%s: %s: expected [x, y, z]", path, what);
    *inf = 0;
    if (is_str(json_array_get(j, 2), "0")) {
        *inf = 1;
        memset(xy, 0, 2 * 6 * sizeof(uint64_t));
        return 0;
    }
    if (!is_str(json_array_get(j, 2), "1"))
        return sp_fail(e, SP_EFORMAT, "%s: %s: z must be \"1\" (affine) or \"0\"", path, what);
    for (int c = 0; c < 2; c++) {
        snprintf(w, sizeof(w), "%s %s", what, c ? "y" : "x");
        if ((rc = num(json_array_get(j, (size_t)c), xy[c], path, w, e)) < 0)
            return rc;
    }
    return 0;
}

/* [[x0, x1], [y0, y1], [z0, z1]] G2 point. */
static int g2(json_t *j, uint64_t xy[2][2][6], int *inf, const char *path, const char *what,
              struct sp_err *e)
{
    char w[96];
    int rc;
    if (!json_is_array(j) || json_array_size(j) != 3)
        return sp_fail(e, SP_EFORMAT, "%s: %s: expected [x, y, z]", path, what);
    for (int c = 0; c < 3; c++) {
        json_t *p = json_array_get(j, (size_t)c);
        if (!json_is_array(p) || json_array_size(p) != 2)
            return sp_fail(e, SP_EFORMAT, "%s: %s: each coordinate must be [c0, c1]", path,
                           what);
    }
    json_t *z = json_array_get(j, 2);
    *inf = 0;
    if (is_str(json_array_get(z, 0), "0") && is_str(json_array_get(z, 1), "0")) {
        *inf = 1;
        memset(xy, 0, 2 * 2 * 6 * sizeof(uint64_t));
        return 0;
    }
    if (!is_str(json_array_get(z, 0), "1") || !is_str(json_array_get(z, 1), "0"))
        return sp_fail(e, SP_EFORMAT, "%s: %s: z must be [\"1\", \"0\"] (affine) or "
                       "[\"0\", \"0\"]", path, what);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++) {
            snprintf(w, sizeof(w), "%s %s.c%d", what, c ? "y" : "x", k);
            if ((rc = num(json_array_get(json_array_get(j, (size_t)c), (size_t)k), xy[c][k],
                          path, w, e)) < 0)
                return rc;
        }
    return 0;
}

static int curve_by_name(json_t *j, enum curve_id *c)
{
    for (int i = 0; i < CURVE_COUNT; i++)
        if (is_str(j, curve_get((enum curve_id)i)->name)) {
            *c = (enum curve_id)i;
            return 0;
        }
    return -1;
}

/* The message of a groth16_gN_from_std failure, prefixed with the path. */
static int prefixed(int rc, const char *path, struct sp_err *e)
{
    struct sp_err t = *e;
    sp_fail(e, rc, "%s: %s", path, t.msg);
    return rc;
}

int groth16_vk_read_json(struct groth16_vk *vk, const char *path, struct sp_err *e)
{
    int rc = 0;
    memset(vk, 0, sizeof(*vk));
    json_t *doc = load(path, e, &rc);
    if (!doc)
        return rc;
    json_t *np = json_object_get(doc, "nPublic"), *ic = json_object_get(doc, "IC");
    uint64_t xy[2][6], xy2[2][2][6];
    int inf;
    if (!json_is_object(doc)) {
        rc = sp_fail(e, SP_EFORMAT, "%s: not a JSON object", path);
        goto out;
    }
    if (!is_str(json_object_get(doc, "protocol"), "groth16")) {
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: protocol is not \"groth16\"", path);
        goto out;
    }
    if (curve_by_name(json_object_get(doc, "curve"), &vk->curve) < 0) {
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: curve must be \"bn128\" or \"bls12381\"", path);
        goto out;
    }
    if (!json_is_integer(np) || json_integer_value(np) < 0 ||
        json_integer_value(np) > (1 << 24)) {
        rc = sp_fail(e, SP_EFORMAT, "%s: nPublic missing or out of range", path);
        goto out;
    }
    vk->n_public = (uint32_t)json_integer_value(np);
    if (!json_is_array(ic) || json_array_size(ic) != (size_t)vk->n_public + 1) {
        rc = sp_fail(e, SP_EMISMATCH, "%s: IC must hold nPublic + 1 = %u points", path,
                     vk->n_public + 1);
        goto out;
    }
    static const char *const g2n[3] = { "vk_beta_2", "vk_gamma_2", "vk_delta_2" };
    uint8_t *g2o[3] = { vk->beta2, vk->gamma2, vk->delta2 };
    if ((rc = g1(json_object_get(doc, "vk_alpha_1"), xy, &inf, path, "vk_alpha_1", e)) < 0)
        goto out;
    if ((rc = groth16_g1_from_std(vk->curve, xy, vk->alpha1, "vk_alpha_1", e)) < 0) {
        prefixed(rc, path, e);
        goto out;
    }
    for (int i = 0; i < 3; i++) {
        if ((rc = g2(json_object_get(doc, g2n[i]), xy2, &inf, path, g2n[i], e)) < 0)
            goto out;
        if ((rc = groth16_g2_from_std(vk->curve, xy2, g2o[i], g2n[i], e)) < 0) {
            prefixed(rc, path, e);
            goto out;
        }
    }
    size_t gb = curve_get(vk->curve)->g1_bytes;
    vk->ic_owned = calloc((size_t)vk->n_public + 1, gb);
    if (!vk->ic_owned) {
        rc = sp_fail(e, -ENOMEM, "%s: out of memory", path);
        goto out;
    }
    vk->ic = vk->ic_owned;
    for (size_t i = 0; i <= vk->n_public; i++) {
        char w[32];
        snprintf(w, sizeof(w), "IC[%zu]", i);
        if ((rc = g1(json_array_get(ic, i), xy, &inf, path, w, e)) < 0)
            goto out;
        if ((rc = groth16_g1_from_std(vk->curve, xy, vk->ic_owned + i * gb, w, e)) < 0) {
            prefixed(rc, path, e);
            goto out;
        }
    }
    if ((rc = groth16_vk_check_subgroups(vk, e)) < 0)
        prefixed(rc, path, e);
out:
    json_decref(doc);
    if (rc < 0)
        groth16_vk_free(vk);
    return rc;
}

int groth16_proof_from_json(struct groth16_proof *p, json_t *doc, enum curve_id default_curve,
                            const char *path, struct sp_err *e)
{
    int rc = 0;
    memset(p, 0, sizeof(*p));
    json_t *proto = json_object_get(doc, "protocol"), *cv = json_object_get(doc, "curve");
    p->curve = default_curve;
    if (json_is_array(doc) && json_is_string(json_array_get(doc, 0)))
        rc = sp_fail(e, SP_EFORMAT, "%s: an array of %zu strings: public signals, not a proof "
                     "(the order is VERIFICATION_KEY.json PUBLIC.json PROOF.json, as "
                     "snarkjs's: swapped?)", path, json_array_size(doc));
    else if (json_is_array(doc))
        rc = sp_fail(e, SP_EFORMAT, "%s: an array of %zu proofs (the proof file of a "
                     "multi-partition job); verify takes one proof: give each partition's "
                     "proof and public signals as files of their own (element i of this "
                     "array and of the public file)", path, json_array_size(doc));
    else if (!json_is_object(doc))
        rc = sp_fail(e, SP_EFORMAT, "%s: not a JSON object", path);
    else if (proto && !is_str(proto, "groth16"))
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: protocol is not \"groth16\"", path);
    else if (cv && curve_by_name(cv, &p->curve) < 0)
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: curve must be \"bn128\" or \"bls12381\"", path);
    else if ((rc = g1(json_object_get(doc, "pi_a"), p->a, &p->a_inf, path, "pi_a", e)) == 0 &&
             (rc = g2(json_object_get(doc, "pi_b"), p->b, &p->b_inf, path, "pi_b", e)) == 0)
        rc = g1(json_object_get(doc, "pi_c"), p->c, &p->c_inf, path, "pi_c", e);
    return rc;
}

int groth16_proof_read_json(struct groth16_proof *p, enum curve_id default_curve,
                            const char *path, struct sp_err *e)
{
    int rc = 0;
    memset(p, 0, sizeof(*p));
    json_t *doc = load(path, e, &rc);
    if (!doc)
        return rc;
    rc = groth16_proof_from_json(p, doc, default_curve, path, e);
    json_decref(doc);
    return rc;
}

int groth16_public_read_json(uint8_t **values, uint32_t *n, const char *path, struct sp_err *e)
{
    int rc = 0;
    *values = NULL;
    *n = 0;
    json_t *doc = load(path, e, &rc);
    if (!doc)
        return rc;
    rc = groth16_public_from_json(values, n, doc, path, e);
    json_decref(doc);
    return rc;
}

int groth16_public_from_json(uint8_t **values, uint32_t *n, json_t *doc, const char *path,
                             struct sp_err *e)
{
    int rc = 0;
    *values = NULL;
    *n = 0;
    if (json_is_object(doc) &&
        (json_object_get(doc, "pi_a") || json_object_get(doc, "vk_alpha_1")))
        return sp_fail(e, SP_EFORMAT, "%s: a %s, not public signals (the order is "
                       "VERIFICATION_KEY.json PUBLIC.json PROOF.json, as snarkjs's: swapped?)",
                       path, json_object_get(doc, "pi_a") ? "proof" : "verification key");
    if (!json_is_array(doc) || json_array_size(doc) > (1u << 24))
        return sp_fail(e, SP_EFORMAT, "%s: expected an array of decimal strings", path);
    size_t cnt = json_array_size(doc);
    uint8_t *v = calloc(cnt + 1, 32);
    if (!v)
        return sp_fail(e, -ENOMEM, "%s: out of memory", path);
    if (cnt > 0 && json_is_array(json_array_get(doc, 0))) {
        rc = sp_fail(e, SP_EFORMAT, "%s: an array of %zu arrays (the public file of a "
                     "multi-partition job); verify takes one partition's public signals",
                     path, cnt);
        free(v);
        return rc;
    }
    for (size_t i = 0; i < cnt; i++) {
        uint64_t l[4];
        int r = dec_limbs(json_array_get(doc, i), l, 4);
        if (r < 0) {
            rc = sp_fail(e, r == -1 ? SP_EFORMAT : SP_ERANGE, "%s: public signal %zu %s", path,
                         i, r == -1 ? "is not a decimal string" : "is not below r");
            free(v);
            return rc;
        }
        memcpy(v + 32 * i, l, 32);
    }
    *values = v;
    *n = (uint32_t)cnt;
    return 0;
}
