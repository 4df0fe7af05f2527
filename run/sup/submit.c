/*
 * submit.c — a job from a submission, and the intake of its files
 * (submit.h; the files themselves are read on helper threads, intake.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_end.h"
#include "kid_keys.h"
#include "log.h"
#include "submit.h"
#include "witness_job.h"

void core_intake_done(struct core *c, struct intake_task *t)
{
    struct job *j = jobs_by_num(&c->jobs, t->job_num);
    struct sp_err e = { "" };
    if (t->abandoned || !j || j->state != JOB_RUNNING || !j->intake_pending) {
        intake_free(t);
        return;
    }
    j->intake_pending = 0;
    if (t->rc < 0) {
        core_fail_job(c, j, FAIL_INPUT, "%s", t->err.msg);
        intake_free(t);
        return;
    }
    uint32_t key_id = t->preloaded_id, evicted = CTL_MAX_KEYS;
    if (t->have_key) {
        /* client keys together stay within --key-cache-max: idle ones make room */
        uint64_t size = t->key.zk.map_len;
        while (keys_client_bytes(&c->keys) + size > c->o.key_cache_max &&
               (evicted = keys_evict_idle(&c->keys, core_busy_keys(c), "--key-cache-max reached")) <
                   CTL_MAX_KEYS)
            core_drop_key(c, evicted);
        if (keys_client_bytes(&c->keys) + size > c->o.key_cache_max) {
            core_fail_job(c, j, FAIL_KEY, "%s: key cache full: running jobs hold %.1f MiB of client keys "
                          "and this one (%.1f MiB) would pass --key-cache-max %.1f MiB; retry "
                          "when they end, or preload it with serve --key NAME=PATH", t->key_name,
                          keys_client_bytes(&c->keys) / 1048576.0, size / 1048576.0,
                          c->o.key_cache_max / 1048576.0);
            intake_free(t);
            return;
        }
        evicted = CTL_MAX_KEYS;
        t->have_key = 0; /* keys_insert consumes it */
        int rc = keys_insert(&c->keys, &t->key, t->key_name, core_busy_keys(c), &key_id, &evicted,
                             &e);
        if (evicted < CTL_MAX_KEYS)
            core_drop_key(c, evicted);
        if (rc < 0) {
            core_fail_job(c, j, rc == -SP_ESLOTSIZE ? FAIL_SLOT_SIZE : FAIL_KEY, "%s", e.msg);
            intake_free(t);
            return;
        }
    }
    struct key_entry *k = &c->keys.keys[key_id];
    k->last_used_ns = now_ns();
    if (k->failed) {
        core_fail_job(c, j, FAIL_KEY, "%s", k->error);
        intake_free(t);
        return;
    }
    if (t->prog_pinned >= 0 && witness_job_attach(j, t->prog_pinned, t->prog_aux, t->prog_path, &e) < 0) {
        core_fail_job(c, j, FAIL_INPUT, "%s", e.msg);
        intake_free(t);
        return;
    }
    if (t->inputs && witness_job_ready(c, j, key_id) < 0) {
        intake_free(t);
        return;
    }
    j->d.key_id = key_id;
    uint64_t now = now_ns();
    for (uint32_t i = 0; i < t->n; i++) {
        j->parts[i].t_queued_ns = now;
        j->parts[i].public_json = t->public_json[i];
        if (t->inputs) { /* the pinned copy replaces the client's descriptor */
            close(j->parts[i].wfd);
            j->parts[i].wfd = t->pinned[i];
            t->pinned[i] = -1;
        }
        j->parts[i].pin = t->pin[i];
        t->public_json[i] = NULL;
    }
    intake_free(t);
    for (unsigned g = 0; g < c->kids.ngpuds; g++)
        core_send_key(c, kids_gpud(&c->kids, g), key_id);
}

void core_intake_deadlines(struct core *c, uint64_t now)
{
    for (struct intake_task *t = c->intake.tasks; t; t = t->next) {
        if (t->abandoned || now < t->deadline_ns)
            continue;
        intake_abandon(&c->intake, t);
        struct job *j = jobs_by_num(&c->jobs, t->job_num);
        int at = t->reading; /* the file its thread is stuck in */
        if (j && j->state == JOB_RUNNING)
            core_fail_job(c, j, FAIL_FILE_TIMEOUT, "%s: reading the job's files did not finish within %u s "
                          "(a stalled filesystem?)",
                          at == INTAKE_READING_KEY || at < 0 || (uint32_t)at >= t->n
                              ? t->key_name : t->wnames[at], c->o.file_timeout_s);
    }
}

int core_submit(struct core *c, uid_t uid, const struct submission *r, int *fds, int nfds,
                struct job **out, struct sp_err *e)
{
    uint32_t key_id = 0;
    int fi = 0;

    if ((unsigned)nfds != submission_fd_count(r))
        return sp_fail(e, -EINVAL, "request names %u files but carries %d descriptors",
                       submission_fd_count(r), nfds);
    if (r->n_witnesses > JOB_MAX_PARTS)
        return sp_fail(e, -EINVAL, "%u witnesses: at most %d in one job", r->n_witnesses,
                       JOB_MAX_PARTS);
    unsigned queued = 0;
    for (struct job *q = c->jobs.head; q; q = q->next)
        if (q->state == JOB_RUNNING)
            queued += q->d.nparts - q->d.ndone;
    if (queued + r->n_witnesses > c->o.max_queued)
        return sp_fail(e, -EAGAIN, "queue full (%u partitions, --max-queued %u): this job's %u "
                       "would pass it; retry later", queued, c->o.max_queued, r->n_witnesses);
    int has_prog = r->program && r->program[0];
    if (r->inputs && c->no_sandbox[0])
        return sp_fail(e, -EPERM, "input jobs are refused on this host: %s", c->no_sandbox);
    if (has_prog && (r->key[0] || !r->inputs))
        return sp_fail(e, -EINVAL, "a witness program goes only with an attached key (--zkey) "
                       "and inputs");
    /* a native program runs as the daemon's user: only that user may send one */
    if (has_prog && uid != getuid())
        return sp_fail(e, -EPERM, "%s: a job may carry its witness program only from the "
                       "daemon's own user (uid %u; it runs as that user); preload it with serve "
                       "--witness-program NAME=PROGRAM", r->program, (unsigned)getuid());
    if (r->key[0]) {
        if (keys_lookup(&c->keys, r->key, &key_id) < 0)
            return sp_fail(e, -ENOENT, "no key named \"%s\" is loaded (use --key at serve, or "
                           "--zkey)", r->key);
        if (c->keys.keys[key_id].failed)
            return sp_fail(e, -SP_EFORMAT, "%s", c->keys.keys[key_id].error);
    }
    struct intake_task *t = calloc(1, sizeof(*t));
    struct job *j = t ? jobs_new(&c->jobs, uid, key_id, r->n_witnesses) : NULL;
    if (!j) {
        free(t);
        return sp_fail(e, -ENOMEM, "out of memory or randomness");
    }
    t->job_num = j->d.num;
    t->uid = (uint32_t)uid;
    t->key_fd = t->prog_fd = t->prog_pinned = t->prog_aux[0] = t->prog_aux[1] = -1;
    if (r->inputs && r->key[0] && c->keys.keys[key_id].has_program &&
        witness_job_attach(j, c->keys.keys[key_id].program_fd, c->keys.keys[key_id].program_aux,
                           c->keys.keys[key_id].program_path, e) < 0) {
        c->jobs.head = j->next;
        jobs_free(j);
        free(t);
        return -EMFILE;
    }
    if (!r->key[0]) {
        t->key_fd = fds[fi];
        fds[fi++] = -1; /* the task owns it now */
        snprintf(t->key_name, sizeof(t->key_name), "%s", r->zkey);
        t->max_key_bytes = c->keys.max_job_key;
        t->hash_key = c->keys.hash_keys;
        if (has_prog) {
            t->prog_fd = fds[fi];
            fds[fi++] = -1;
            snprintf(t->prog_path, sizeof(t->prog_path), "%s", r->program);
        }
    } else {
        t->shape = c->keys.keys[key_id].shape;
        t->preloaded_id = key_id;
    }
    t->n = r->n_witnesses;
    t->inputs = r->inputs;
    for (unsigned i = 0; i < JOB_MAX_PARTS; i++)
        t->pinned[i] = -1;
    for (unsigned i = 0; i < r->n_witnesses; i++) {
        snprintf(j->parts[i].wname, sizeof(j->parts[i].wname), "%s", r->witnesses[i]);
        snprintf(t->wnames[i], sizeof(t->wnames[i]), "%s", r->witnesses[i]);
        t->wfds[i] = fcntl(fds[fi + i], F_DUPFD_CLOEXEC, 0);
    }
    for (unsigned i = 0; i < r->n_witnesses; i++) {
        j->parts[i].wfd = fds[fi + i];
        fds[fi + i] = -1; /* the job owns it now */
    }
    t->deadline_ns = now_ns() + (uint64_t)c->o.file_timeout_s * 1000000000ull;
    int rc = intake_start(&c->intake, t);
    if (rc < 0) {
        if (rc == -EAGAIN)
            sp_fail(e, rc, "busy: the files of earlier submits are still being read (at most %d "
                    "at once, %d of one uid); retry in %u s", INTAKE_MAX_RUNNING,
                    INTAKE_MAX_RUNNING_PER_UID, c->o.file_timeout_s);
        else if (rc == -EMFILE)
            sp_fail(e, rc, "busy: file readers of this uid (at most %d) or of all (%d) are stuck in "
                    "reads past --file-timeout (a hung filesystem?); retry in %u s, once some "
                    "have come back", INTAKE_MAX_ABANDONED_PER_UID, INTAKE_MAX_ABANDONED,
                    c->o.file_timeout_s);
        else
            sp_fail(e, rc, "cannot start a file reader: %s", strerror(-rc));
        c->jobs.head = j->next; /* jobs_new put it first */
        jobs_free(j);
        intake_free(t);
        return rc == -EAGAIN ? -EBUSY : rc; /* -EBUSY, -EMFILE: the answer says busy (conn.c) */
    }
    /* in the submission order now, so reading its files costs it no place;
     * an out-of-range key id keeps it from being dispatched until then */
    j->intake_pending = 1;
    j->d.key_id = DSP_MAX_KEYS;
    dispatch_add(&c->dsp, &j->d);
    *out = j;
    return 0;
}

