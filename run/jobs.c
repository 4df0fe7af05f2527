/*
 * jobs.c — jobs, their partitions, the partition queue and dispatch.
 *
 * A job is one key and one or more witnesses (partitions). Each partition is
 * synthesized into one slot and proved once; the job ends when every
 * partition has a proof (done), or one fails (failed), or the client cancels.
 * The partition table here is the truth about completion: a second result
 * for a done partition is dropped, so each proof is returned once however
 * many times a partition had to be redone after a crash.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "daemon.h"
#include "slot.h"
#include "proof.h"
#include "wtns.h"

struct job *jobs_find(struct daemon *d, const char *id, uid_t uid)
{
    for (struct job *j = d->jobs; j; j = j->next)
        if (strcmp(j->id, id) == 0)
            return j->uid == uid ? j : NULL; /* another uid's job does not exist for you */
    return NULL;
}

struct job *jobs_by_num(struct daemon *d, uint64_t num)
{
    for (struct job *j = d->jobs; j; j = j->next)
        if (j->num == num)
            return j;
    return NULL;
}

int jobs_active(const struct daemon *d)
{
    int n = 0;
    for (const struct job *j = d->jobs; j; j = j->next)
        n += j->state == JOB_RUNNING;
    return n;
}

static void close_witnesses(struct job *j)
{
    for (uint32_t i = 0; i < j->nparts; i++)
        if (j->parts[i].wfd >= 0) {
            close(j->parts[i].wfd);
            j->parts[i].wfd = -1;
        }
}

/* Frees READY slots that still hold this (ended) job's partitions. */
static void free_ready_slots(struct daemon *d, struct job *j)
{
    for (uint32_t s = 0; s < d->pool.nslots; s++) {
        uint64_t w = slot_word(&d->pool, s);
        struct slot_header h;
        if (slot_state_of(w) == SLOT_READY && slot_read_header(&d->pool, s, &h) == 0 &&
            h.job_id == j->num)
            slot_force_free(&d->pool, s, slot_gen_of(w));
    }
}

static void job_end(struct daemon *d, struct job *j, enum job_state st)
{
    j->state = st;
    j->t_end_ns = now_ns();
    close_witnesses(j);
    if (st != JOB_DONE)
        free_ready_slots(d, j);
    if (st == JOB_DONE)
        d->c.jobs_done++;
    else if (st == JOB_FAILED)
        d->c.jobs_failed++;
    conns_job_ended(d, j);
}

void jobs_fail(struct daemon *d, struct job *j, const char *fmt, ...)
{
    if (j->state != JOB_RUNNING)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->error, sizeof(j->error), fmt, ap);
    va_end(ap);
    daemon_log("job %s failed: %s", j->id, j->error);
    job_end(d, j, JOB_FAILED);
}

void jobs_cancel(struct daemon *d, struct job *j)
{
    if (j->state != JOB_RUNNING)
        return;
    snprintf(j->error, sizeof(j->error), "cancelled");
    job_end(d, j, JOB_CANCELLED);
}

void jobs_fail_all(struct daemon *d, const char *why)
{
    for (struct job *j = d->jobs; j; j = j->next)
        jobs_fail(d, j, "%s", why);
}

void jobs_key_failed(struct daemon *d, uint32_t key_id, const char *why)
{
    for (struct job *j = d->jobs; j; j = j->next)
        if (j->key_id == key_id)
            jobs_fail(d, j, "%s", why);
}

/* Public signals of an opened witness (values 1..nPublic) as snarkjs's
 * public.json; NULL with the reason in e. */
static char *public_signals(const struct zkey *zk, const struct wtns *w, int wfd,
                            struct sp_err *e)
{
    char *s = NULL;
    uint8_t *buf = malloc((size_t)zk->n_public * 32 + 32);
    if (buf && wtns_read(w, wfd, buf, 1, zk->n_public, e) == 0)
        s = public_to_json(buf, zk->n_public);
    else if (!buf)
        sp_fail(e, -ENOMEM, "out of memory");
    free(buf);
    return s;
}

int jobs_submit(struct daemon *d, uid_t uid, const struct request *r, int *fds, int nfds,
                struct job **out, char *err, size_t errlen)
{
    uint32_t key_id;
    int fi = 0;
    struct sp_err e = { "" };

    if ((unsigned)nfds != request_fd_count(r)) {
        snprintf(err, errlen, "request names %u files but carries %d descriptors",
                 request_fd_count(r), nfds);
        return -1;
    }
    unsigned queued = 0;
    for (struct job *q = d->jobs; q; q = q->next)
        if (q->state == JOB_RUNNING)
            queued += q->nparts - q->ndone;
    if (queued + r->n_witnesses > d->o.max_queued) {
        snprintf(err, errlen, "queue full (%u partitions, --max-queued %u): this job's %u "
                 "would pass it; retry later", queued, d->o.max_queued, r->n_witnesses);
        return -1; /* the caller closes the descriptors */
    }
    if (r->key[0]) {
        if (keys_lookup(d, r->key, &key_id) < 0) {
            snprintf(err, errlen, "no key named \"%s\" is loaded (use --key at serve, or --zkey)",
                     r->key);
            return -1;
        }
    } else {
        int kfd = fds[fi];
        fds[fi++] = -1; /* the key cache owns (or has closed) it now */
        if (keys_from_fd(d, kfd, r->zkey, &key_id, err, errlen) < 0)
            return -1;
    }
    struct key_entry *k = &d->keys[key_id];
    k->last_used_ns = now_ns();
    if (k->failed) {
        snprintf(err, errlen, "%s", k->error);
        return -1;
    }
    struct job *j = calloc(1, sizeof(*j));
    struct part *parts = calloc(r->n_witnesses, sizeof(*parts));
    uint8_t rnd[JOB_ID_HEX / 2];
    if (!j || !parts || getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        free(j);
        free(parts);
        snprintf(err, errlen, "out of memory or randomness");
        return -1;
    }
    /* each witness now: a bad file fails this submit with a clear error, and
     * its public signals are read while it is open */
    for (unsigned i = 0; i < r->n_witnesses; i++) {
        struct wtns w;
        if (wtns_open(&w, fds[fi + i], r->witnesses[i], &e) < 0 ||
            wtns_check_key(&w, &k->zk, &e) < 0 ||
            !(parts[i].public_json = public_signals(&k->zk, &w, fds[fi + i], &e))) {
            snprintf(err, errlen, "%s", e.msg);
            for (unsigned q = 0; q < i; q++)
                free(parts[q].public_json);
            free(parts);
            free(j);
            return -1;
        }
    }
    for (unsigned i = 0; i < sizeof(rnd); i++)
        snprintf(j->id + 2 * i, 3, "%02x", rnd[i]);
    j->num = ++d->next_job_num;
    j->uid = uid;
    j->key_id = key_id;
    j->state = JOB_RUNNING;
    j->nparts = r->n_witnesses;
    j->parts = parts;
    j->t_submit_ns = now_ns();
    for (unsigned i = 0; i < r->n_witnesses; i++) {
        parts[i].wfd = fds[fi + i];
        fds[fi + i] = -1; /* the job owns it now */
        snprintf(parts[i].wname, sizeof(parts[i].wname), "%s", r->witnesses[i]);
    }
    j->next = d->jobs;
    d->jobs = j;
    kids_send_key(d, kids_gpud(d), key_id);
    *out = j;
    return 0;
}

/* The oldest queued partition whose key gpud has loaded. */
static int next_partition(struct daemon *d, struct job **jo, uint32_t *po)
{
    struct job *best = NULL;
    uint32_t bp = 0;
    uint64_t loaded = kids_gpud(d)->keys_loaded;
    for (struct job *j = d->jobs; j; j = j->next) {
        if (j->state != JOB_RUNNING || !(loaded & (1ull << j->key_id)))
            continue;
        for (uint32_t i = 0; i < j->nparts; i++)
            if (j->parts[i].state == PART_QUEUED) {
                best = j; /* list is newest first: the last match is the oldest */
                bp = i;
                break;
            }
    }
    *jo = best;
    *po = bp;
    return best != NULL;
}

void jobs_dispatch(struct daemon *d)
{
    if (d->draining > 1)
        return;
    for (unsigned i = 0; i < d->o.synthds; i++) {
        struct kid *k = &d->kids[i];
        struct job *j;
        uint32_t p;
        if (k->state != KID_IDLE || !next_partition(d, &j, &p))
            continue;
        static struct ctl_msg m;
        if (kids_send_key(d, k, j->key_id) < 0)
            continue; /* its socket is gone: the exit handler will see to it */
        memset(&m, 0, sizeof(m));
        m.type = CTL_SYNTH;
        m.job_id = j->num;
        m.partition = p;
        m.key_id = j->key_id;
        ctl_text(&m, "%s", j->parts[p].wname);
        if (ctl_send(k->p.ctl, &m, &j->parts[p].wfd, 1) < 0)
            continue;
        j->parts[p].state = PART_SYNTH;
        j->parts[p].synth_inc = k->p.incarnation;
        j->parts[p].taken_by = 0;
        k->state = KID_BUSY;
        k->job = j;
        k->part = p;
    }
}

void jobs_on_synth_done(struct daemon *d, struct kid *k, const struct ctl_msg *m)
{
    (void)d;
    struct job *j = k->job;
    if (!j || j->num != m->job_id || m->partition >= j->nparts)
        return;
    struct part *p = &j->parts[m->partition];
    /* only the synthd that holds the partition now moves it on: an earlier
     * holder's late report is about work that was already written off */
    if (p->state != PART_SYNTH || p->synth_inc != k->p.incarnation)
        return;
    p->synth_ns = m->times.ns[STAGE_SYNTH];
    p->state = PART_PUBLISHED;
    p->synth_inc = 0;
}

void jobs_on_taken(struct daemon *d, struct kid *k, const struct ctl_msg *m)
{
    struct job *j = jobs_by_num(d, m->job_id);
    if (j && j->state == JOB_RUNNING && m->partition < j->nparts)
        j->parts[m->partition].taken_by = k->p.incarnation;
}

void jobs_on_proved(struct daemon *d, const struct ctl_msg *m)
{
    struct job *j = jobs_by_num(d, m->job_id);
    if (!j || j->state != JOB_RUNNING || m->partition >= j->nparts ||
        j->parts[m->partition].state == PART_DONE) {
        d->c.duplicate_results++;
        return;
    }
    struct part *p = &j->parts[m->partition];
    p->proof_json = strdup(m->text);
    if (!p->proof_json) {
        jobs_fail(d, j, "out of memory storing a proof");
        return;
    }
    p->times = m->times;
    p->times.ns[STAGE_SYNTH] = p->synth_ns;
    p->state = PART_DONE;
    d->c.proofs++;
    d->done_ns[d->done_head++ % (sizeof(d->done_ns) / sizeof(d->done_ns[0]))] = now_ns();
    if (++j->ndone == j->nparts)
        job_end(d, j, JOB_DONE);
}

void jobs_partition_died(struct daemon *d, struct job *j, uint32_t part, const char *why)
{
    struct part *p = &j->parts[part];
    if (j->state != JOB_RUNNING || p->state == PART_DONE)
        return;
    p->attempts++;
    p->synth_inc = 0;
    p->taken_by = 0;
    if (p->attempts >= d->o.max_attempts) {
        jobs_fail(d, j, "partition %u (%s) failed after %u attempts; last: %s", part, p->wname,
                  p->attempts, why);
        return;
    }
    p->state = PART_QUEUED;
}

char *jobs_result_json(const struct job *j)
{
    json_t *o = json_object();
    static const char *const names[] = { "running", "done", "failed", "cancelled" };
    json_object_set_new(o, "ok", json_boolean(j->state == JOB_DONE));
    json_object_set_new(o, "job", json_string(j->id));
    json_object_set_new(o, "state", json_string(names[j->state]));
    if (j->state == JOB_DONE)
        json_object_set_new(o, "partitions", json_integer(j->nparts));
    else
        json_object_set_new(o, "error", json_string(j->error));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

char *jobs_partition_json(const struct job *j, uint32_t i)
{
    json_t *o = json_object();
    json_object_set_new(o, "partition", json_integer(i));
    json_object_set_new(o, "proof", json_loads(j->parts[i].proof_json, 0, NULL));
    json_object_set_new(o, "public", json_loads(j->parts[i].public_json, 0, NULL));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

void jobs_purge(struct daemon *d, uint64_t now)
{
    uint64_t ttl = (uint64_t)d->o.result_ttl_s * 1000000000ull;
    for (struct job **pj = &d->jobs; *pj;) {
        struct job *j = *pj;
        int held = 0;
        for (unsigned i = 0; i < d->o.synthds; i++)
            held |= d->kids[i].job == j;
        if (j->state == JOB_RUNNING || held || j->readers || now - j->t_end_ns < ttl) {
            pj = &j->next;
            continue;
        }
        *pj = j->next;
        for (uint32_t i = 0; i < j->nparts; i++) {
            free(j->parts[i].proof_json);
            free(j->parts[i].public_json);
        }
        free(j->parts);
        free(j);
    }
}
