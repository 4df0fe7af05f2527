/*
 * client_results.c — a job's results fetched from the daemon and written
 * as snarkjs's proof.json and public.json (client_results.h), for `submit
 * --wait` and `wait`.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_proof.h"
#include "client_results.h"
#include "groth16_json.h"
#include "output.h"
#include "request.h"

/* snarkjs's layout (common/proof.c): indent 1, key order kept, no trailing
 * newline; an empty public array is "[\n]". */
static char *dump_proof(json_t *v)
{
    return json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
}

static char *dump_public(json_t *v)
{
    if (json_is_array(v) && json_array_size(v) == 0)
        return strdup("[\n]");
    return json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
}

/*
 * Writes a done job's outputs. One partition: the proof object and the
 * public array, as `slotprove prove` writes them. Several: an array of proofs
 * and an array of public arrays, in partition order. want is the expected
 * number of partitions, or 0 when unknown.
 */
int write_results(json_t *resp, size_t want, const char *proof_path,
                         const char *public_path, struct sp_err *e)
{
    return write_results_bp(resp, want, proof_path, public_path, NULL, e);
}

/* Each partition's proof object as bellperson's 192 bytes, concatenated in
 * partition order (common/bellperson_proof.h). NULL with e on a proof that
 * is not a BLS12-381 Groth16 proof (a zkey job on bn128, say). */
static char *bellperson_bytes(json_t *proofs, size_t n, struct sp_err *e)
{
    char *out = malloc(n * BP_PROOF_BYTES + 1);
    if (!out) {
        sp_fail(e, -ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        struct groth16_proof p;
        char name[64];
        snprintf(name, sizeof name, "the daemon's proof %zu", i);
        if (groth16_proof_from_json(&p, json_array_get(proofs, i), CURVE_BLS12381, name, e) < 0 ||
            bp_proof_from_groth16((uint8_t *)out + i * BP_PROOF_BYTES, &p, name, e) < 0) {
            free(out);
            return NULL;
        }
    }
    return out;
}

int write_results_bp(json_t *resp, size_t want, const char *proof_path, const char *public_path,
                     const char *bp_path, struct sp_err *e)
{
    json_t *proofs = json_object_get(resp, "proofs"), *pub = json_object_get(resp, "public");
    if (!json_is_array(proofs) || !json_is_array(pub) || json_array_size(proofs) == 0 ||
        json_array_size(proofs) != json_array_size(pub))
        return sp_fail(e, -EPROTO, "malformed response from the daemon: \"proofs\" and "
                                   "\"public\" must be arrays of the same, non-zero length");
    size_t n = json_array_size(proofs);
    if (want && n != want)
        return sp_fail(e, -EPROTO, "the daemon returned %zu proofs for %zu witnesses", n, want);
    for (size_t i = 0; i < n; i++)
        if (!json_is_object(json_array_get(proofs, i)) || !json_is_array(json_array_get(pub, i)))
            return sp_fail(e, -EPROTO, "malformed response from the daemon: proof %zu is not "
                                       "an object with an array of public signals", i);
    char *ptext, *qtext, *btext = NULL;
    if (bp_path && !(btext = bellperson_bytes(proofs, n, e)))
        return -EPROTO;
    if (n == 1) {
        ptext = dump_proof(json_array_get(proofs, 0));
        qtext = dump_public(json_array_get(pub, 0));
    } else {
        ptext = dump_proof(proofs);
        qtext = json_dumps(pub, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    }
    int rc;
    if (!ptext || !qtext) {
        rc = sp_fail(e, -ENOMEM, "out of memory");
    } else {
        const char *paths[3], *texts[3];
        size_t lens[3];
        unsigned k = 0;
        if (proof_path) {
            paths[k] = proof_path, texts[k] = ptext, lens[k++] = strlen(ptext);
            paths[k] = public_path, texts[k] = qtext, lens[k++] = strlen(qtext);
        }
        if (bp_path)
            paths[k] = bp_path, texts[k] = btext, lens[k++] = n * BP_PROOF_BYTES;
        rc = write_outputs_len(k, paths, texts, lens, e);
    }
    free(ptext);
    free(qtext);
    free(btext);
    return rc;
}

/*
 * A done job's results follow its answer line one partition per line
 * ({"partition":i,"proof":{…},"public":[…]}, request.h), so that no job is
 * too large to fetch: reads the "partitions" lines into resp's "proofs" and
 * "public" arrays.
 */
static int read_partitions(struct client_conn *c, json_t *resp, struct sp_err *e)
{
    json_t *np = json_object_get(resp, "partitions");
    if (!json_is_integer(np) || json_integer_value(np) < 1 ||
        json_integer_value(np) > REQUEST_MAX_WITNESSES)
        return sp_fail(e, -EPROTO, "malformed response from the daemon: no partition count");
    json_t *proofs = json_array(), *pubs = json_array();
    json_object_set_new(resp, "proofs", proofs);
    json_object_set_new(resp, "public", pubs);
    for (json_int_t i = 0; i < json_integer_value(np); i++) {
        char *line;
        size_t len;
        json_error_t je;
        int rc = client_read_line(c, &line, &len, e);
        if (rc < 0)
            return rc;
        json_t *p = json_loadb(line, len, 0, &je);
        json_t *idx = json_object_get(p, "partition");
        if (!json_is_integer(idx) || json_integer_value(idx) != i) {
            json_decref(p);
            return sp_fail(e, -EPROTO, "malformed response from the daemon: expected the "
                                       "result of partition %lld", (long long)i);
        }
        json_array_append(proofs, json_object_get(p, "proof"));
        json_array_append(pubs, json_object_get(p, "public"));
        json_decref(p);
    }
    return 0;
}

/*
 * Sends wait for job on c and handles the answer: writes the outputs when
 * both paths are given, else prints the final state.
 */
int client_wait_job(struct client_conn *c, const char *job, size_t want,
                    const char *proof_path, const char *public_path, const char *bp_path,
                    struct sp_err *e)
{
    json_t *req = json_object(), *resp = NULL;
    json_object_set_new(req, "op", json_string("wait"));
    json_object_set_new(req, "job", json_string(job));
    int rc = client_call(c, req, NULL, 0, &resp, e);
    json_decref(req);
    if (rc < 0)
        goto out;
    const char *state = json_string_value(json_object_get(resp, "state"));
    if (!state || strcmp(state, "done") != 0) {
        rc = sp_fail(e, -EPROTO, "job %s ended in state \"%.40s\"", job, state ? state : "?");
        client_sanitize(e->msg);
        goto out;
    }
    if ((proof_path || bp_path) && (rc = read_partitions(c, resp, e)) == 0)
        rc = write_results_bp(resp, want, proof_path, public_path, bp_path, e);
    else if (printf("done\n") < 0 || fflush(stdout) != 0)
        rc = sp_fail(e, -EIO, "stdout: %s", strerror(errno));
out:
    json_decref(resp);
    return rc;
}
