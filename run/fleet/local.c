/*
 * local.c — see fleet.h: fleetd's side of the local serve. fleetd is a
 * client like any other (request.h): one connection per held partition,
 * carrying a one-witness submit and then the wait for it, the witness
 * passed as the descriptor fleetd opened and hashed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet.h"
#include "witness_open.h"

int local_status(const char *sock, struct local_info *li, struct sp_err *e)
{
    struct client_conn c = { .fd = -1 };
    json_t *req = json_pack("{ss}", "op", "status"), *resp = NULL;
    int rc = client_open(&c, sock, e);
    if (rc == 0)
        rc = client_call(&c, req, NULL, 0, &resp, e);
    client_close(&c);
    json_decref(req);
    if (rc < 0) {
        json_decref(resp);
        return rc;
    }
    json_t *st = json_object_get(resp, "status");
    json_t *total = json_object_get(json_object_get(st, "slots"), "total");
    json_t *running = json_object_get(json_object_get(st, "jobs"), "running");
    json_t *keys = json_object_get(st, "keys");
    memset(li, 0, sizeof(*li));
    if (!json_is_integer(total) || !json_is_array(keys)) {
        json_decref(resp);
        return sp_fail(e, -EPROTO, "%s: the daemon's status has no slots.total or keys "
                                   "(an older slotprove serve?)", sock);
    }
    li->slots = (unsigned)json_integer_value(total);
    li->jobs_running = json_is_integer(running) ? (unsigned)json_integer_value(running) : 0;
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *sha = json_string_value(json_object_get(k, "sha256"));
        if (!name || !sha || strlen(sha) != 64 || li->nkeys >= 64)
            continue;
        snprintf(li->keys[li->nkeys].name, sizeof(li->keys[0].name), "%s", name);
        memcpy(li->keys[li->nkeys].sha256, sha, 65);
        li->nkeys++;
    }
    json_decref(resp);
    return 0;
}

static int fail_part(struct fleet_part *p, int outcome, int code, struct sp_err *e,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_part(struct fleet_part *p, int outcome, int code, struct sp_err *e,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof(p->error), fmt, ap);
    va_end(ap);
    p->outcome = outcome;
    return sp_fail(e, code, "%s", p->error);
}

int local_open(struct fleet_part *p, unsigned timeout_s, uint64_t now_ms, struct sp_err *e)
{
    struct sp_err we = { "" };
    p->conn.fd = -1;
    p->outcome = PART_PROVING;
    if (!(p->wo = witness_open_start(p->wpath, &we)))
        return fail_part(p, PART_RELEASE, -EAGAIN, e, "%s", we.msg);
    p->wo_deadline_ms = now_ms + (uint64_t)timeout_s * 1000;
    return 0;
}

int local_start(struct fleet_part *p, const char *sock, struct sp_err *e)
{
    struct sp_err we = { "" };
    char hex[65];
    p->conn.fd = -1;
    p->outcome = PART_PROVING;
    struct witness_open *wo = p->wo;
    p->wo = NULL;
    if (witness_open_take(wo, &p->wfd, hex, &p->st0, &we) < 0)
        return fail_part(p, PART_FAILED, -EIO, e, "%s", we.msg);
    if ((uint64_t)p->st0.st_size != p->wsize)
        return fail_part(p, PART_FAILED, -EINVAL, e, "%s: the witness changed after submit "
                         "(%llu bytes at submit, %llu now)", p->wpath,
                         (unsigned long long)p->wsize, (unsigned long long)p->st0.st_size);
    if (strcmp(hex, p->wsha) != 0)
        return fail_part(p, PART_FAILED, -EINVAL, e, "%s: the witness changed after submit "
                         "(SHA-256 %.16s… at submit, %.16s… now)", p->wpath, p->wsha, hex);
    /* the name is for serve's messages only (request.h): the path when it
     * fits and is UTF-8 */
    json_t *wname = strlen(p->wpath) <= REQUEST_NAME_MAX ? json_string(p->wpath) : NULL;
    json_t *req = json_pack("{sssss[o]}", "op", "submit", "key", p->key, "witnesses",
                            wname ? wname : json_string("witness"));
    json_t *resp = NULL;
    if (!req)
        return fail_part(p, PART_RELEASE, -ENOMEM, e, "out of memory");
    int rc = client_open(&p->conn, sock, &we);
    if (rc == 0)
        rc = client_call(&p->conn, req, &p->wfd, 1, &resp, &we);
    json_decref(req);
    char *sjob = p->serve_job;
    const char *id = json_string_value(json_object_get(resp, "job"));
    if (rc == 0 && (!id || strlen(id) != JOB_ID_HEX))
        rc = sp_fail(&we, -EPROTO, "%s: no job id in the answer to submit", sock);
    if (rc == 0)
        memcpy(sjob, id, JOB_ID_HEX + 1);
    json_decref(resp);
    if (rc < 0)
        return fail_part(p, PART_RELEASE, rc, e, "local serve: %s", we.msg);
    /* the job is serve's now; wait for it on the same connection */
    req = json_pack("{ssss}", "op", "wait", "job", sjob);
    char *line = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    rc = line ? 0 : -ENOMEM;
    if (line) {
        size_t n = strlen(line);
        line[n] = '\n';
        rc = client_send(&p->conn, line, n + 1, NULL, 0, &we);
        free(line);
    }
    if (rc < 0)
        return fail_part(p, PART_RELEASE, rc, e, "local serve: %s", we.msg);
    return 0;
}

void local_finish(struct fleet_part *p)
{
    struct sp_err we = { "" };
    char *line;
    size_t len;
    json_error_t je;
    json_t *a = NULL, *r = NULL;
    if (client_read_line(&p->conn, &line, &len, &we) < 0) {
        fail_part(p, PART_RELEASE, -EIO, NULL, "local serve went away while proving: %s", we.msg);
        goto out;
    }
    a = json_loadb(line, len, 0, &je);
    const char *state = json_string_value(json_object_get(a, "state"));
    if (!json_is_true(json_object_get(a, "ok")) || !state || strcmp(state, "done") != 0) {
        const char *why = json_string_value(json_object_get(a, "error"));
        char buf[400];
        snprintf(buf, sizeof(buf), "%s", why ? why : "no reason given");
        client_sanitize(buf);
        /* a proving failure is the input's; anything else lets another try */
        fail_part(p, state && strcmp(state, "failed") == 0 ? PART_FAILED : PART_RELEASE, -EIO,
                  NULL, "local serve: %s", buf);
        goto out;
    }
    if (client_read_line(&p->conn, &line, &len, &we) < 0) {
        fail_part(p, PART_RELEASE, -EIO, NULL, "local serve went away: %s", we.msg);
        goto out;
    }
    r = json_loadb(line, len, 0, &je);
    json_t *proof = json_object_get(r, "proof"), *pub = json_object_get(r, "public");
    if (!json_is_object(proof) || !json_is_array(pub)) {
        fail_part(p, PART_RELEASE, -EPROTO, NULL, "local serve: malformed result line");
        goto out;
    }
    /* serve pinned the witness at its own submit (wtns_pin.h); the bytes
     * hashed here came before that: the same size and times now mean that
     * serve read what was hashed */
    struct stat st;
    if (fstat(p->wfd, &st) < 0 || st.st_size != p->st0.st_size ||
        st.st_mtim.tv_sec != p->st0.st_mtim.tv_sec || st.st_mtim.tv_nsec != p->st0.st_mtim.tv_nsec ||
        st.st_ctim.tv_sec != p->st0.st_ctim.tv_sec || st.st_ctim.tv_nsec != p->st0.st_ctim.tv_nsec) {
        fail_part(p, PART_FAILED, -EINVAL, NULL, "%s: the witness changed while it was proved",
                  p->wpath);
        goto out;
    }
    p->proof = json_dumps(proof, JSON_COMPACT | JSON_PRESERVE_ORDER);
    p->public_ = json_dumps(pub, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!p->proof || !p->public_)
        fail_part(p, PART_RELEASE, -ENOMEM, NULL, "out of memory");
    else
        p->outcome = PART_DONE;
out:
    json_decref(a);
    json_decref(r);
    client_close(&p->conn);
    if (p->wfd >= 0)
        close(p->wfd);
    p->wfd = -1;
}

void local_cancel(struct fleet_part *p, const char *sock)
{
    struct client_conn c = { .fd = -1 };
    struct sp_err e = { "" };
    json_t *req = json_pack("{ssss}", "op", "cancel", "job", p->serve_job), *resp = NULL;
    if (req && p->serve_job[0] && client_open(&c, sock, &e) == 0)
        client_call(&c, req, NULL, 0, &resp, &e); /* a job already ended is no error here */
    client_close(&c);
    json_decref(req);
    json_decref(resp);
}

void fleet_part_clear(struct fleet_part *p)
{
    if (p->wo)
        witness_open_abandon(p->wo); /* its thread frees it when it returns */
    client_close(&p->conn);
    if (p->wfd >= 0)
        close(p->wfd);
    free(p->proof);
    free(p->public_);
    memset(p, 0, sizeof(*p));
    p->wfd = -1;
    p->conn.fd = -1;
}
