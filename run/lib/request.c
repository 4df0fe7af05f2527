/* request.c — see request.h. Parsing is jansson's; this file only checks
 * shapes and bounds. */
#include "request.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t len, const char *msg)
{
    snprintf(err, len, "%s", msg);
    return -1;
}

static int copy_name(char *dst, json_t *v, const char *what, char *err, size_t errlen)
{
    if (!json_is_string(v)) {
        snprintf(err, errlen, "\"%s\" must be a string", what);
        return -1;
    }
    size_t n = json_string_length(v);
    if (n == 0 || n > REQUEST_NAME_MAX || memchr(json_string_value(v), 0, n)) {
        snprintf(err, errlen, "\"%s\" must be 1..%d bytes without NUL", what, REQUEST_NAME_MAX);
        return -1;
    }
    memcpy(dst, json_string_value(v), n + 1);
    return 0;
}

static int parse_job(struct request *r, json_t *o, char *err, size_t errlen)
{
    json_t *j = json_object_get(o, "job");
    if (!json_is_string(j) || json_string_length(j) != JOB_ID_HEX)
        return fail(err, errlen, "\"job\" must be a 32-hex-digit job id");
    const char *s = json_string_value(j);
    for (int i = 0; i < JOB_ID_HEX; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return fail(err, errlen, "\"job\" must be a 32-hex-digit job id");
    memcpy(r->job, s, JOB_ID_HEX + 1);
    return 0;
}

int request_parse(const char *line, size_t len, struct request *r, char *err, size_t errlen)
{
    json_error_t je;
    int rc = -1;
    memset(r, 0, sizeof(*r));
    if (len > REQUEST_LINE_MAX)
        return fail(err, errlen, "request line too long");
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(err, errlen, "malformed JSON: %s", je.text);
        return -1;
    }
    if (!json_is_object(o)) {
        fail(err, errlen, "a request must be a JSON object");
        goto out;
    }
    const char *op = json_string_value(json_object_get(o, "op"));
    if (!op) {
        fail(err, errlen, "missing \"op\"");
        goto out;
    }
    if (strcmp(op, "status") == 0) {
        r->op = REQ_STATUS;
        rc = 0;
    } else if (strcmp(op, "wait") == 0 || strcmp(op, "cancel") == 0) {
        r->op = op[0] == 'w' ? REQ_WAIT : REQ_CANCEL;
        rc = parse_job(r, o, err, errlen);
    } else if (strcmp(op, "submit") == 0) {
        r->op = REQ_SUBMIT;
        json_t *key = json_object_get(o, "key"), *zkey = json_object_get(o, "zkey");
        json_t *ws = json_object_get(o, "witnesses"), *ins = json_object_get(o, "inputs");
        if (!key == !zkey) {
            fail(err, errlen, "submit needs exactly one of \"key\" or \"zkey\"");
            goto out;
        }
        if (key && copy_name(r->key, key, "key", err, errlen) < 0)
            goto out;
        if (zkey && copy_name(r->zkey, zkey, "zkey", err, errlen) < 0)
            goto out;
        if (ws && ins) {
            fail(err, errlen, "a job has \"witnesses\" or \"inputs\", not both");
            goto out;
        }
        if (ins) {
            r->inputs = 1;
            ws = ins;
        }
        json_t *prog = json_object_get(o, "program");
        if (prog) {
            const char *p = json_string_value(prog);
            if (!zkey || !ins) {
                fail(err, errlen, "\"program\" goes only with \"zkey\" and \"inputs\"");
                goto out;
            }
            if (!p || p[0] != '/' || strlen(p) > REQUEST_PATH_MAX ||
                strlen(p) != json_string_length(prog)) {
                snprintf(err, errlen, "\"program\" must be an absolute path of at most %d bytes",
                         REQUEST_PATH_MAX);
                goto out;
            }
            memcpy(r->program, p, strlen(p) + 1);
        }
        if (!json_is_array(ws) || json_array_size(ws) == 0) {
            fail(err, errlen, ins ? "\"inputs\" must be a non-empty array of names"
                                  : "\"witnesses\" must be a non-empty array of names");
            goto out;
        }
        if (json_array_size(ws) > REQUEST_MAX_WITNESSES) {
            snprintf(err, errlen, "at most %d witnesses per job", REQUEST_MAX_WITNESSES);
            goto out;
        }
        r->n_witnesses = (unsigned)json_array_size(ws);
        for (unsigned i = 0; i < r->n_witnesses; i++)
            if (copy_name(r->witnesses[i], json_array_get(ws, i), "witnesses[]", err, errlen) < 0)
                goto out;
        rc = 0;
    } else {
        snprintf(err, errlen, "unknown op \"%.40s\"", op);
    }
out:
    json_decref(o);
    return rc;
}

unsigned request_fd_count(const struct request *r)
{
    if (r->op != REQ_SUBMIT)
        return 0;
    return r->n_witnesses + (r->zkey[0] ? 1 : 0) + (r->program[0] ? 1 : 0);
}
