/*
 * core.c — the supervisor core (core.h): start, the children's events,
 * dispatch, submit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "ctl.h"
#include "log.h"
#include "proof.h"
#include "publish.h"
#include "slot.h"
#include "wtns.h"

_Static_assert(CTL_MAX_KEYS <= DSP_MAX_KEYS, "key ids must fit the dispatcher's key bitmasks");
_Static_assert(CTL_MAX_KEYS <= 64, "key bitmasks are uint64_t");

#define job_of(dj) ((struct job *)((char *)(dj) - offsetof(struct job, d)))

void core_init(struct core *c)
{
    memset(c, 0, sizeof(*c));
    c->pool.ctl_fd = c->pool.payload_fd = -1;
    c->intake.done_fd = c->intake.post_fd = -1;
    for (unsigned g = 0; g < MAX_GPUDS; g++)
        c->doorbells[g] = -1;
}

int core_start(struct core *c, struct sp_err *e)
{
    int rc = pool_create_rings(&c->pool, c->o.slots, c->o.slot_bytes, c->o.gpuds);
    if (rc < 0)
        return sp_fail(e, rc, "cannot create %u slots of %llu bytes: %s", c->o.slots,
                       (unsigned long long)c->o.slot_bytes, strerror(-rc));
    c->keys.slot_bytes = c->o.slot_bytes;
    for (unsigned g = 0; g < c->o.gpuds; g++)
        if ((c->doorbells[g] = eventfd(0, EFD_CLOEXEC)) < 0)
            return sp_fail(e, -errno, "eventfd: %s", strerror(errno));
    if (c->o.trace_buffers)
        setenv("SLOTPROVE_TRACE_BUFFERS", "1", 1);
    if ((rc = intake_init(&c->intake, e)) < 0)
        return rc;
    dispatch_init(&c->dsp, c->o.gpuds, c->o.max_attempts);
    struct kid_table *t = &c->kids;
    t->nsynthds = c->o.synthds;
    t->ngpuds = c->o.gpuds;
    t->pool_ctl_fd = c->pool.ctl_fd;
    t->pool_payload_fd = c->pool.payload_fd;
    for (unsigned g = 0; g < c->o.gpuds; g++)
        t->doorbell_fds[g] = c->doorbells[g];
    t->threads = c->o.threads;
    t->backend = c->o.backend;
    t->synth_rss_max = c->o.synth_rss_max;
    return kids_start(t, e);
}

int core_pollfds(struct core *c, struct pollfd *pf, int max)
{
    int n = 0;
    if (c->intake.done_fd >= 0 && max > 0)
        pf[n++] = (struct pollfd){ c->intake.done_fd, POLLIN, 0 };
    for (unsigned i = 0; i < c->kids.nkids && n + 2 <= max; i++) {
        struct kid *k = &c->kids.kids[i];
        if (!k->alive)
            continue;
        pf[n++] = (struct pollfd){ k->p.ctl, POLLIN, 0 };
        pf[n++] = (struct pollfd){ k->p.pidfd, POLLIN, 0 };
    }
    return n;
}

/* ---- keys in the children ------------------------------------------------ */

static int send_key(struct core *c, struct kid *k, uint32_t key_id)
{
    static struct ctl_msg m;
    if (!k->alive || (k->keys_sent >> key_id & 1))
        return 0;
    ctl_init(&m, CTL_KEY_LOAD);
    m.key_id = key_id;
    ctl_text(&m, "%s", c->keys.keys[key_id].name);
    int rc = ctl_send(k->p.ctl, &m, &c->keys.keys[key_id].fd, 1);
    if (rc == 0)
        k->keys_sent |= 1ull << key_id;
    return rc;
}

/* Every child forgets an evicted key. */
static void drop_key(struct core *c, uint32_t key_id)
{
    static struct ctl_msg m;
    ctl_init(&m, CTL_KEY_DROP);
    m.key_id = key_id;
    for (unsigned i = 0; i < c->kids.nkids; i++) {
        struct kid *k = &c->kids.kids[i];
        if (k->alive && (k->keys_sent >> key_id & 1))
            ctl_send(k->p.ctl, &m, NULL, 0);
        k->keys_sent &= ~(1ull << key_id);
        k->keys_loaded &= ~(1ull << key_id);
    }
    for (unsigned g = 0; g < c->kids.ngpuds; g++)
        dispatch_gpud_key(&c->dsp, g, key_id, 0);
}

/* ---- job ends ------------------------------------------------------------- */

/* Frees READY slots that still hold this (ended) job's partitions. */
static void free_ready_slots(struct core *c, const struct job *j)
{
    for (uint32_t s = 0; s < c->pool.nslots; s++) {
        uint64_t w = slot_word(&c->pool, s);
        struct slot_header h;
        if (slot_state_of(w) == SLOT_READY && slot_read_header(&c->pool, s, &h) == 0 &&
            h.job_id == j->d.num)
            slot_force_free(&c->pool, s, slot_gen_of(w));
    }
}

static void end_job(struct core *c, struct job *j, enum job_state st, const char *reason)
{
    if (!jobs_end(j, st, reason))
        return;
    dispatch_end(&c->dsp, &j->d);
    if (st != JOB_DONE)
        free_ready_slots(c, j);
    if (st == JOB_DONE)
        c->c.jobs_done++;
    else if (st == JOB_FAILED) {
        c->c.jobs_failed++;
        sup_log(LOG_WARN, "job %s failed: %s", j->id, j->error);
    }
    if (c->hooks.job_ended)
        c->hooks.job_ended(c->hooks.ctx, j);
}

void core_fail_job(struct core *c, struct job *j, const char *fmt, ...)
{
    char why[JOB_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    end_job(c, j, JOB_FAILED, why);
}

void core_cancel_job(struct core *c, struct job *j)
{
    end_job(c, j, JOB_CANCELLED, "cancelled");
}

static void fail_all(struct core *c, const char *why)
{
    for (struct job *j = c->jobs.head; j; j = j->next)
        core_fail_job(c, j, "%s", why);
}

int core_usable(const struct core *c, struct sp_err *e)
{
    const char *why;
    if (!kids_any_gpud_usable(&c->kids, &why) || !kids_any_synthd_usable(&c->kids, &why))
        return sp_fail(e, -EAGAIN, "cannot prove: %s", why ? why : "no process can run");
    return 0;
}

/* ---- child messages ------------------------------------------------------- */

static struct job *running_job(struct core *c, uint64_t num, uint32_t part)
{
    struct job *j = jobs_by_num(&c->jobs, num);
    return j && j->state == JOB_RUNNING && part < j->d.nparts ? j : NULL;
}

/* How long a child may hold a partition of job j without a progress
 * report: 2 minutes plus 50 µs per domain element (2^24: 14 more). */
static uint64_t work_deadline(struct core *c, const struct job *j, uint64_t now)
{
    const struct key_entry *ke = &c->keys.keys[j->d.key_id];
    uint64_t n = ke->used ? ke->zk.domain_size : 0;
    return now + 120000000000ull + n * 50000ull;
}

/* gpud k reported progress: renew its deadline while it holds work. */
static void gpud_progress(struct core *c, struct kid *k, const struct job *j)
{
    if (!c->dsp.gpuds[k->index].holding)
        k->deadline_ns = 0;
    else if (j)
        k->deadline_ns = work_deadline(c, j, now_ns());
}

static enum dsp_outcome apply(struct core *c, struct job *j, uint32_t part,
                              enum dsp_event_type type, uint32_t who)
{
    struct dsp_event ev = { .type = type, .who = who, .now_ns = now_ns() };
    return dispatch_apply(&c->dsp, &j->d, part, &ev);
}

static void on_proved(struct core *c, struct kid *k, const struct ctl_msg *m)
{
    struct job *j = jobs_by_num(&c->jobs, m->job_id);
    enum dsp_outcome o = j ? apply(c, j, m->partition, DSP_EV_PROVED, k->index) : DSP_DUPLICATE;
    if (o != DSP_PART_DONE && o != DSP_JOB_DONE) {
        c->c.duplicate_results++;
        gpud_progress(c, k, j);
        return;
    }
    struct groth16_proof proof;
    if (m->text_len != sizeof(proof)) {
        core_fail_job(c, j, "partition %u: gpud sent a %u-byte proof, not %zu bytes",
                      m->partition, m->text_len, sizeof(proof));
        return;
    }
    memcpy(&proof, m->text, sizeof(proof));
    if (jobs_store_proof(j, m->partition, &proof, &m->times) < 0) {
        core_fail_job(c, j, "out of memory storing a proof");
        return;
    }
    c->c.proofs++;
    c->done_ns[c->done_head++ % (sizeof(c->done_ns) / sizeof(c->done_ns[0]))] = now_ns();
    if (o == DSP_JOB_DONE)
        end_job(c, j, JOB_DONE, NULL);
    gpud_progress(c, k, j);
}

static void kid_msg(struct core *c, struct kid *k, struct ctl_msg *m, int *fds, int nfds)
{
    struct job *j;
    for (int i = 0; i < nfds; i++)
        close(fds[i]); /* children send no descriptors */
    switch (m->type) {
    case CTL_HELLO:
        kids_hello(k);
        if (k->role == ROLE_GPUD) {
            dispatch_gpud_up(&c->dsp, k->index);
            for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
                if (c->keys.keys[i].used && !c->keys.keys[i].failed)
                    send_key(c, k, i);
        }
        if (c->hooks.hello)
            c->hooks.hello(c->hooks.ctx, k, m->text);
        break;
    case CTL_KEY_OK:
        if (m->key_id < CTL_MAX_KEYS) {
            k->keys_loaded |= 1ull << m->key_id;
            if (k->role == ROLE_GPUD)
                dispatch_gpud_key(&c->dsp, k->index, m->key_id, 1);
        }
        break;
    case CTL_KEY_ERR:
        if (m->key_id < CTL_MAX_KEYS && c->keys.keys[m->key_id].used) {
            struct key_entry *ke = &c->keys.keys[m->key_id];
            ke->failed = 1;
            snprintf(ke->error, sizeof(ke->error), "%.590s", m->text);
            for (j = c->jobs.head; j; j = j->next)
                if (j->d.key_id == m->key_id && !j->intake_pending)
                    core_fail_job(c, j, "%s", m->text);
        }
        break;
    case CTL_SYNTH_DONE:
        if (k->holding && k->job_num == m->job_id && k->part == m->partition &&
            (j = running_job(c, m->job_id, m->partition))) {
            j->parts[m->partition].synth_ns = m->times.ns[STAGE_SYNTH];
            /* TAKEN may have come first (another socket): the report is
             * still this synthd's own, about the partition it holds */
            apply(c, j, m->partition, DSP_EV_SYNTH_DONE, k->p.incarnation);
            if (c->hooks.synthesized)
                c->hooks.synthesized(c->hooks.ctx, j, m->partition, m->slot,
                                     m->times.ns[STAGE_SYNTH]);
        }
        k->state = KID_IDLE;
        k->holding = 0;
        k->deadline_ns = 0;
        break;
    case CTL_SYNTH_ERR:
        if (k->holding && (j = running_job(c, k->job_num, k->part))) {
            apply(c, j, k->part, DSP_EV_FAILED, k->p.incarnation);
            core_fail_job(c, j, "%s", m->text);
        }
        k->state = KID_IDLE;
        k->holding = 0;
        k->deadline_ns = 0;
        break;
    case CTL_TAKEN:
        if ((j = running_job(c, m->job_id, m->partition)))
            apply(c, j, m->partition, DSP_EV_TAKEN, k->index);
        gpud_progress(c, k, j);
        break;
    case CTL_PROGRESS:
        gpud_progress(c, k, running_job(c, m->job_id, m->partition));
        if (c->hooks.progress && m->stage < STAGE_COUNT &&
            (j = running_job(c, m->job_id, m->partition)))
            c->hooks.progress(c->hooks.ctx, j, m->partition, (enum stage)m->stage,
                              m->times.ns[m->stage]);
        break;
    case CTL_PROVED:
        on_proved(c, k, m);
        break;
    case CTL_PROVE_ERR:
        if ((j = running_job(c, m->job_id, m->partition))) {
            apply(c, j, m->partition, DSP_EV_FAILED, k->index);
            if (m->status == -SP_EVERIFY) /* "w.wtns: the witness does not satisfy the circuit" */
                core_fail_job(c, j, "%s: %s", j->parts[m->partition].wname, m->text);
            else
                core_fail_job(c, j, "partition %u (%s): %s", m->partition,
                              j->parts[m->partition].wname, m->text);
        }
        gpud_progress(c, k, j);
        break;
    default:
        sup_log(LOG_WARN, "%s pid %d sent unexpected %s", kid_role_name(k->role),
                (int)k->p.pid, ctl_type_name(m->type));
    }
}

/* Reads every queued message of k (to EOF when it has exited). */
static void drain(struct core *c, struct kid *k)
{
    static struct ctl_msg m;
    int fds[CTL_MAX_FDS], nfds, rc;
    int ctl = k->p.ctl;
    while (k->alive && k->p.ctl == ctl && (rc = ctl_recv(ctl, &m, fds, &nfds)) != 0 &&
           rc != -EAGAIN) {
        if (rc == 1)
            kid_msg(c, k, &m, fds, nfds);
        else if (rc != -EPROTO)
            break;
    }
}

/* ---- deaths --------------------------------------------------------------- */

/* Is (job, partition) in a READY or PROVING slot? Headers only. */
static int slot_live(void *ctx, const struct dsp_job *dj, uint32_t part)
{
    struct core *c = ctx;
    for (uint32_t s = 0; s < c->pool.nslots; s++) {
        uint32_t st = slot_state_of(slot_word(&c->pool, s));
        struct slot_header h;
        if ((st == SLOT_READY || st == SLOT_PROVING) && slot_read_header(&c->pool, s, &h) == 0 &&
            h.job_id == dj->num && h.partition == part)
            return 1;
    }
    return 0;
}

struct death_ctx {
    struct core *c;
    const struct kid_death *dd;
    int gpud;
    int held;
};

static int death_live(void *ctx, const struct dsp_job *dj, uint32_t part)
{
    return slot_live(((struct death_ctx *)ctx)->c, dj, part);
}

static void death_outcome(void *ctx, struct dsp_job *dj, uint32_t part, enum dsp_outcome o)
{
    struct death_ctx *x = ctx;
    struct job *j = job_of(dj);
    x->held = 1;
    if (o == DSP_REQUEUED && x->gpud)
        x->c->c.resynthesized++;
    else if (o == DSP_REPROVE)
        x->c->c.reproved_from_shm++;
    else if (o == DSP_POISONED)
        core_fail_job(x->c, j, "partition %u (%s) failed after %u attempts; last: %s", part,
                      j->parts[part].wname, dj->parts[part].attempts, x->dd->why);
}

static void on_exit_(struct core *c, struct kid *k)
{
    struct kid_death dd;
    struct reclaim_report rep;
    uint32_t inc = k->p.incarnation;
    int gpud = k->role == ROLE_GPUD;

    /* results it sent before dying count: read its socket to EOF first;
     * after a gpud's death also every other gpud's, so their TAKEN reports
     * are in before "published but in no slot" is read as the dead one's */
    drain(c, k);
    if (gpud)
        for (unsigned g = 0; g < c->kids.ngpuds; g++)
            drain(c, kids_gpud(&c->kids, g));
    kids_reap(&c->kids, k, &dd);
    int held = k->holding;
    /* only now, after the reap, are its slots reclaimed; a dead gpud's
     * PROVING slots go back to READY with a ticket on its own ring, which
     * its successor consumes (any other gpud finds them by the table scan) */
    pool_select_ring(&c->pool, gpud ? k->index : 0);
    slot_reclaim_owner(&c->pool, inc, &rep);
    if (gpud) {
        c->c.gpud_deaths++;
        held |= c->dsp.gpuds[k->index].holding > 0 || rep.n_readied > 0;
        /* PROVING slots went back to READY: free those no job needs */
        for (uint32_t i = 0; i < rep.n_readied; i++) {
            struct reclaim_entry *r = &rep.readied[i];
            struct job *j = r->hdr_valid ? running_job(c, r->job_id, r->partition) : NULL;
            if (!j || j->d.parts[r->partition].state == DSP_DONE)
                slot_force_free(&c->pool, r->slot, r->gen);
            else /* it held the slot PROVING, maybe before its TAKEN was sent */
                apply(c, j, r->partition, DSP_EV_TAKEN, k->index);
        }
    } else {
        c->c.synthd_deaths++;
    }
    struct death_ctx x = { c, &dd, gpud, 0 };
    struct dsp_event ev = { .type = gpud ? DSP_EV_GPUD_DIED : DSP_EV_SYNTHD_DIED,
                            .who = gpud ? k->index : inc, .cause = dd.cause,
                            .now_ns = now_ns() };
    dispatch_death(&c->dsp, &ev, death_live, death_outcome, &x);
    held |= x.held;
    if (kids_after_death(&c->kids, k, &dd, held, c->draining, now_ns()) && !c->draining) {
        const char *why;
        if (!kids_any_gpud_usable(&c->kids, &why) || !kids_any_synthd_usable(&c->kids, &why))
            fail_all(c, why);
    }
}

static void intake_finished(struct core *c, struct intake_task *t);

void core_on_fd(struct core *c, int fd)
{
    if (fd == c->intake.done_fd) {
        struct intake_task *t;
        while ((t = intake_collect(&c->intake)))
            intake_finished(c, t);
        return;
    }
    struct kid *k = kids_by_fd(&c->kids, fd);
    if (!k)
        return;
    if (fd == k->p.ctl)
        drain(c, k);
    else
        on_exit_(c, k);
}

/* ---- dispatch and ticks --------------------------------------------------- */

static void dispatch_idle(struct core *c, uint64_t now)
{
    static struct ctl_msg m;
    if (c->draining > 1)
        return;
    for (unsigned i = 0; i < c->kids.nsynthds; i++) {
        struct kid *k = &c->kids.kids[i];
        struct dsp_job *dj;
        uint32_t p;
        /* a stopped synthd (SIGSTOP) gets nothing new to hold */
        if (k->state != KID_IDLE || k->stopped_since_ns || !dispatch_next(&c->dsp, now, &dj, &p))
            continue;
        struct job *j = job_of(dj);
        if (send_key(c, k, dj->key_id) < 0)
            continue; /* its socket is gone: the exit handler will see to it */
        ctl_init(&m, CTL_SYNTH);
        m.job_id = dj->num;
        m.partition = p;
        m.key_id = dj->key_id;
        int g = dispatch_pick_gpud(&c->dsp, dj->key_id);
        m.gpud = g < 0 ? 0 : (uint32_t)g;
        m.pin = j->parts[p].pin; /* synthd checks what it reads against it */
        ctl_text(&m, "%s", j->parts[p].wname);
        if (ctl_send(k->p.ctl, &m, &j->parts[p].wfd, 1) < 0)
            continue;
        apply(c, j, p, DSP_EV_SYNTH_START, k->p.incarnation);
        k->state = KID_BUSY;
        k->holding = 1;
        k->job_num = dj->num;
        k->part = p;
        k->deadline_ns = work_deadline(c, j, now);
    }
}

static int job_held(void *ctx, const struct job *j)
{
    struct core *c = ctx;
    for (unsigned i = 0; i < c->kids.nsynthds; i++)
        if (c->kids.kids[i].holding && c->kids.kids[i].job_num == j->d.num)
            return 1;
    return 0;
}

static void job_gone(void *ctx, struct job *j)
{
    dispatch_remove(&((struct core *)ctx)->dsp, &j->d);
}

static uint64_t busy_keys(const struct core *c);
static void intake_deadlines(struct core *c, uint64_t now);

void core_tick(struct core *c, uint64_t now)
{
    kids_tick(&c->kids, now, c->draining);
    intake_deadlines(c, now);
    /* every gpud gets the keys of running jobs; a KEY_LOAD that found its
     * socket full is sent again here */
    uint64_t need = busy_keys(c);
    for (unsigned g = 0; need && g < c->kids.ngpuds; g++) {
        struct kid *k = kids_gpud(&c->kids, g);
        for (uint32_t id = 0; id < CTL_MAX_KEYS; id++)
            if ((need >> id & 1) && !(k->keys_sent >> id & 1) && c->keys.keys[id].used &&
                !c->keys.keys[id].failed)
                send_key(c, k, id);
    }
    dispatch_idle(c, now);
    if (now - c->last_purge_ns > 1000000000ull) {
        jobs_purge(&c->jobs, now, (uint64_t)c->o.result_ttl_s * 1000000000ull, job_held,
                   job_gone, c);
        c->last_purge_ns = now;
    }
}

/* ---- submit --------------------------------------------------------------- */

static uint64_t busy_keys(const struct core *c)
{
    uint64_t m = 0;
    for (const struct job *j = c->jobs.head; j; j = j->next)
        if (j->state == JOB_RUNNING && !j->intake_pending)
            m |= 1ull << j->d.key_id;
    return m;
}

/* A job whose files were read: into the dispatcher, or failed. */
static void intake_finished(struct core *c, struct intake_task *t)
{
    struct job *j = jobs_by_num(&c->jobs, t->job_num);
    struct sp_err e = { "" };
    if (t->abandoned || !j || j->state != JOB_RUNNING || !j->intake_pending) {
        intake_free(t);
        return;
    }
    j->intake_pending = 0;
    if (t->rc < 0) {
        core_fail_job(c, j, "%s", t->err.msg);
        intake_free(t);
        return;
    }
    uint32_t key_id = t->preloaded_id, evicted = CTL_MAX_KEYS;
    if (t->have_key) {
        /* client keys together stay within --key-cache-max: idle ones make room */
        uint64_t size = t->key.zk.map_len;
        while (keys_client_bytes(&c->keys) + size > c->o.key_cache_max &&
               (evicted = keys_evict_idle(&c->keys, busy_keys(c), "--key-cache-max reached")) <
                   CTL_MAX_KEYS)
            drop_key(c, evicted);
        if (keys_client_bytes(&c->keys) + size > c->o.key_cache_max) {
            core_fail_job(c, j, "%s: key cache full: running jobs hold %.1f MiB of client keys "
                          "and this one (%.1f MiB) would pass --key-cache-max %.1f MiB; retry "
                          "when they end, or preload it with serve --key NAME=PATH", t->key_name,
                          keys_client_bytes(&c->keys) / 1048576.0, size / 1048576.0,
                          c->o.key_cache_max / 1048576.0);
            intake_free(t);
            return;
        }
        evicted = CTL_MAX_KEYS;
        t->have_key = 0; /* keys_insert consumes it */
        int rc = keys_insert(&c->keys, &t->key, t->key_name, busy_keys(c), &key_id, &evicted,
                             &e);
        if (evicted < CTL_MAX_KEYS)
            drop_key(c, evicted);
        if (rc < 0) {
            core_fail_job(c, j, "%s", e.msg);
            intake_free(t);
            return;
        }
    }
    struct key_entry *k = &c->keys.keys[key_id];
    k->last_used_ns = now_ns();
    if (k->failed) {
        core_fail_job(c, j, "%s", k->error);
        intake_free(t);
        return;
    }
    j->d.key_id = key_id;
    for (uint32_t i = 0; i < t->n; i++) {
        j->parts[i].public_json = t->public_json[i];
        j->parts[i].pin = t->pin[i];
        t->public_json[i] = NULL;
    }
    intake_free(t);
    for (unsigned g = 0; g < c->kids.ngpuds; g++)
        send_key(c, kids_gpud(&c->kids, g), key_id);
}

/* Jobs whose files have not been read by their deadline fail; the threads
 * stuck on them are left to finish (or not) on their own. */
static void intake_deadlines(struct core *c, uint64_t now)
{
    for (struct intake_task *t = c->intake.tasks; t; t = t->next) {
        if (t->abandoned || now < t->deadline_ns)
            continue;
        t->abandoned = 1;
        struct job *j = jobs_by_num(&c->jobs, t->job_num);
        if (j && j->state == JOB_RUNNING)
            core_fail_job(c, j, "%s%s: reading the job's files did not finish within %u s "
                          "(a stalled filesystem?)", t->key_fd >= 0 || t->have_key ?
                          t->key_name : t->wnames[0], t->n > 1 ? " and the other witnesses" : "",
                          c->o.file_timeout_s);
    }
}

int core_submit(struct core *c, uid_t uid, const struct request *r, int *fds, int nfds,
                struct job **out, struct sp_err *e)
{
    uint32_t key_id = 0;
    int fi = 0;

    if ((unsigned)nfds != request_fd_count(r))
        return sp_fail(e, -EINVAL, "request names %u files but carries %d descriptors",
                       request_fd_count(r), nfds);
    unsigned queued = 0;
    for (struct job *q = c->jobs.head; q; q = q->next)
        if (q->state == JOB_RUNNING)
            queued += q->d.nparts - q->d.ndone;
    if (queued + r->n_witnesses > c->o.max_queued)
        return sp_fail(e, -EAGAIN, "queue full (%u partitions, --max-queued %u): this job's %u "
                       "would pass it; retry later", queued, c->o.max_queued, r->n_witnesses);
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
    t->key_fd = -1;
    if (!r->key[0]) {
        t->key_fd = fds[fi];
        fds[fi++] = -1; /* the task owns it now */
        snprintf(t->key_name, sizeof(t->key_name), "%s", r->zkey);
        t->max_key_bytes = c->keys.max_job_key;
        t->hash_key = c->keys.hash_keys;
    } else {
        t->zk = c->keys.keys[key_id].zk;
        t->preloaded_id = key_id;
    }
    t->n = r->n_witnesses;
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
            sp_fail(e, rc, "%d submits are still reading their files; try again later",
                    INTAKE_MAX_RUNNING);
        else
            sp_fail(e, rc, "cannot start a file reader: %s", strerror(-rc));
        c->jobs.head = j->next; /* jobs_new put it first */
        jobs_free(j);
        intake_free(t);
        return rc;
    }
    /* in the submission order now, so reading its files costs it no place;
     * an out-of-range key id keeps it from being dispatched until then */
    j->intake_pending = 1;
    j->d.key_id = DSP_MAX_KEYS;
    dispatch_add(&c->dsp, &j->d);
    *out = j;
    return 0;
}

void core_shutdown(struct core *c)
{
    kids_shutdown(&c->kids);
    for (unsigned g = 0; g < MAX_GPUDS; g++) {
        if (c->doorbells[g] >= 0)
            close(c->doorbells[g]);
        c->doorbells[g] = -1;
    }
    pool_detach(&c->pool);
}
