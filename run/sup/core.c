/*
 * core.c — the supervisor core (core.h): start, the children's messages
 * and deaths, dispatch. Submits are in submit.c, job ends in job_end.c.
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
#include "job_end.h"
#include "kid_keys.h"
#include "log.h"
#include "pipeline.h"
#include "proof.h"
#include "publish.h"
#include "slot.h"
#include "submit.h"
#include "synth_share.h"
#include "witness_job.h"
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
/* Another uid's share of synthesizing partitions (dispatch.h): one synthd
 * and one usable slot always left to the rest, the slots quarantined
 * under stuck processes not counted as usable (stuck.h), so hung files
 * cannot take the last slot either. With one synthd or one slot in all,
 * nothing can be kept back: the share is 1. */
static void foreign_share(struct core *c)
{
    unsigned q = 0;
    for (unsigned i = 0; i < c->kids.stuck.n; i++)
        q += stuck_slots(&c->pool, c->kids.stuck.c[i].p.incarnation, NULL, 0);
    unsigned all = c->o.synthds < c->o.slots ? c->o.synthds : c->o.slots;
    unsigned usable = c->o.slots > q ? c->o.slots - q : 0;
    unsigned s = c->o.synthds < usable ? c->o.synthds : usable;
    c->dsp.foreign_share = all <= 1 ? 1 : s > 1 ? s - 1 : 0;
    c->dsp.share_capped = 1;
}


int core_start(struct core *c, struct sp_err *e)
{
    int rc = c->o.lazy_pool ? pool_create_lazy(&c->pool, c->o.slots, c->o.slot_bytes, c->o.gpuds)
                            : pool_create_rings(&c->pool, c->o.slots, c->o.slot_bytes, c->o.gpuds);
    if (rc == 0)
        pool_guard_init(&c->pool_guard, &c->pool);
    if (rc < 0)
        return sp_fail(e, rc, "cannot create %u slots of %llu bytes: %s", c->o.slots,
                       (unsigned long long)c->o.slot_bytes, strerror(-rc));
    /* one slot size from here on: the pool's, a whole number of pages
     * (status, the log and a too-small key's refusal all name this one) */
    c->o.slot_bytes = c->pool.slot_bytes;
    c->keys.slot_bytes = c->pool.slot_bytes;
    c->started_ns = now_ns();
    for (unsigned g = 0; g < c->o.gpuds; g++)
        if ((c->doorbells[g] = eventfd(0, EFD_CLOEXEC)) < 0)
            return sp_fail(e, -errno, "eventfd: %s", strerror(errno));
    if ((rc = intake_init(&c->intake, e)) < 0)
        return rc;
    dispatch_init(&c->dsp, c->o.gpuds, c->o.max_attempts);
    c->dsp.own_uid = (uint32_t)geteuid();
    foreign_share(c);
    struct kid_table *t = &c->kids;
    t->nsynthds = c->o.synthds;
    t->ngpuds = c->o.gpuds;
    t->pool_ctl_fd = c->pool.ctl_fd;
    t->pool_payload_fd = c->pool.payload_fd;
    for (unsigned g = 0; g < c->o.gpuds; g++)
        t->doorbell_fds[g] = c->doorbells[g];
    t->threads = c->o.threads;
    t->synth_threads = c->o.synth_threads ? c->o.synth_threads : c->o.threads;
    t->backend = c->o.backend;
    t->gpus = c->o.gpus;
    t->gpu_mem = c->o.gpu_mem;
    t->gpud_workers = c->o.gpud_workers;
    t->synth_rss_max = c->o.synth_rss_max;
    t->no_verify = c->o.no_verify;
    t->trace_buffers = c->o.trace_buffers;
    t->log_stamp = c->o.log_stamp;
    t->witness_mem = c->o.witness_mem;
    t->witness_cpu = c->o.witness_cpu_s;
    t->witness_time = c->o.witness_wall_s;
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
    for (unsigned i = 0; i < c->kids.stuck.n && n < max; i++)
        pf[n++] = (struct pollfd){ c->kids.stuck.c[i].p.pidfd, POLLIN, 0 };
    return n;
}

static void fail_all(struct core *c, const char *why)
{
    for (struct job *j = c->jobs.head; j; j = j->next)
        core_fail_job(c, j, FAIL_NO_PROCESS, "%s", why);
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
    uint64_t n = ke->used ? ke->shape.domain_size : 0;
    /* an input's witness program may run up to its wall-clock limit first */
    uint64_t program = j->prog_fd >= 0 ? (uint64_t)c->o.witness_wall_s * 1000000000ull : 0;
    return now + 120000000000ull + n * 50000ull + program;
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
        /* a job that ended without this proof abandoned its work: the proof
         * comes late, it is not a second one */
        if (!j || j->state == JOB_FAILED || j->state == JOB_CANCELLED)
            c->c.late_results++;
        else
            c->c.duplicate_results++;
        gpud_progress(c, k, j);
        return;
    }
    struct groth16_proof proof;
    if (!j->parts[m->partition].public_json && witness_job_public(c, j, m->partition) < 0)
        return;
    if (m->text_len != sizeof(proof)) {
        core_fail_job(c, j, FAIL_INTERNAL, "partition %u: gpud sent a %u-byte proof, not %zu bytes",
                      m->partition, m->text_len, sizeof(proof));
        return;
    }
    memcpy(&proof, m->text, sizeof(proof));
    if (jobs_store_proof(j, m->partition, &proof, &m->times) < 0) {
        core_fail_job(c, j, FAIL_INTERNAL, "out of memory storing a proof");
        return;
    }
    c->c.proofs++;
    k->proofs++;
    k->busy_ns += m->times.ns[STAGE_PROVE] + m->times.ns[STAGE_VERIFY];
    if (m->reproved)
        sup_log(LOG_WARN, "event=reproved job=%s partition=%u gpud=%u|job %s partition %u: the "
                "%s backend's proof failed its check; proved again by its fallback and checked",
                j->id, m->partition, k->index, j->id, m->partition, c->o.backend);
    sup_log(LOG_NOTE, "event=proved job=%s partition=%u gpud=%u ms=%llu|job %s partition %u "
            "proved by gpud %u", j->id, m->partition, k->index,
            (unsigned long long)((m->times.ns[STAGE_PROVE] + m->times.ns[STAGE_VERIFY]) / 1000000),
            j->id, m->partition, k->index);
    if (c->hooks.proved)
        c->hooks.proved(c->hooks.ctx, m->times.ns[STAGE_PROVE] + m->times.ns[STAGE_VERIFY]);
    core_note_proved(c, j, m->partition, k->index, &m->times);
    c->done_ns[c->done_head++ % (sizeof(c->done_ns) / sizeof(c->done_ns[0]))] = now_ns();
    if (o == DSP_JOB_DONE)
        core_finish_job(c, j);
    gpud_progress(c, k, j);
}

/* A partition that failed --max-attempts times fails its job. */
static void fail_poisoned(struct core *c, struct job *j, uint32_t part, const char *why)
{
    core_fail_job(c, j, FAIL_CRASHES, "partition %u (%s) failed after %u attempts; last: %s", part,
                  j->parts[part].wname, j->d.parts[part].attempts, why);
}

static void kid_msg(struct core *c, struct kid *k, struct ctl_msg *m, int *fds, int nfds)
{
    struct job *j;
    /* the one descriptor a child sends: a synthd's KEY_OK may bring the
     * key's synthesis index (synth_share.h) */
    int index_fd = m->type == CTL_KEY_OK && k->role == ROLE_SYNTHD && nfds == 1 &&
                   m->key_id < CTL_MAX_KEYS && c->keys.keys[m->key_id].load_seq == m->load_seq
                       ? fds[0]
                       : -1;
    for (int i = 0; i < nfds; i++)
        if (fds[i] != index_fd)
            close(fds[i]);
    switch (m->type) {
    case CTL_HELLO:
        kids_hello(k);
        if (k->role == ROLE_GPUD) {
            sup_log(LOG_NOTE, "event=gpud_hello index=%u pid=%d|gpud %u: backend %.200s", k->index,
                    (int)k->p.pid, k->index, m->text);
            dispatch_gpud_up(&c->dsp, k->index);
            for (uint32_t i = 0; i < CTL_MAX_KEYS; i++)
                if (c->keys.keys[i].used && !c->keys.keys[i].failed)
                    core_send_key(c, k, i);
        }
        if (c->hooks.hello)
            c->hooks.hello(c->hooks.ctx, k, m->text);
        break;
    case CTL_BACKEND:
        snprintf(k->backend, sizeof(k->backend), "%.511s", m->text);
        k->dev_budget = m->dev_budget_bytes;
        k->dev_held = m->dev_held_bytes;
        break;
    case CTL_PUBLIC:
        if ((j = running_job(c, m->job_id, m->partition)) && j->prog_fd >= 0)
            witness_job_public_part(c, j, m->partition, m->first, m->text, m->text_len);
        break;
    case CTL_KEY_OK:
        if (m->key_id < CTL_MAX_KEYS) {
            k->keys_loaded |= 1ull << m->key_id;
            if (index_fd >= 0)
                keys_adopt_synth_index(&c->keys.keys[m->key_id], index_fd);
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
                    core_fail_job(c, j, FAIL_KEY, "%s", m->text);
        }
        break;
    case CTL_SYNTH_DONE:
        if (k->holding && k->job_num == m->job_id && k->part == m->partition &&
            (j = running_job(c, m->job_id, m->partition))) {
            core_note_synthesized(c, j, &j->parts[m->partition], m);
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
            /* only synthd's slot check says SP_ESLOTSIZE; any other refusal
             * (a witness out of range, wire 0 not 1, a failed program) is the input's */
            core_fail_job(c, j, m->status == -SP_ESLOTSIZE ? FAIL_SLOT_SIZE : FAIL_INPUT, "%s",
                          m->text);
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
        if ((j = running_job(c, m->job_id, m->partition)) && m->status == -SP_EDEVICE) {
            /* the device failed, not the input: the partition goes back to
             * the queue, counted like a crash toward --max-attempts */
            struct dsp_event ev = { .type = DSP_EV_GPUD_DIED, .who = k->index,
                                    .cause = DSP_CAUSE_CRASH, .now_ns = now_ns() };
            enum dsp_outcome o = dispatch_apply(&c->dsp, &j->d, m->partition, &ev);
            if (o == DSP_POISONED)
                fail_poisoned(c, j, m->partition, m->text);
            else if (o == DSP_REQUEUED) {
                c->c.resynthesized++;
                sup_log(LOG_WARN, "event=reprove job=%s partition=%u gpud=%u|job %s partition %u: "
                        "%s; proving it again", j->id, m->partition, k->index, j->id,
                        m->partition, m->text);
            }
        } else if (j) {
            apply(c, j, m->partition, DSP_EV_FAILED, k->index);
            if (m->status == -SP_EVERIFY) /* "w.wtns: the witness does not satisfy the circuit" */
                core_fail_job(c, j, FAIL_INPUT, "%s: %s", j->parts[m->partition].wname, m->text);
            else
                core_fail_job(c, j, FAIL_INPUT, "partition %u (%s): %s", m->partition,
                              j->parts[m->partition].wname, m->text);
        }
        gpud_progress(c, k, j);
        break;
    default:
        sup_log(LOG_WARN, "event=protocol role=%s pid=%d|%s pid %d sent unexpected %s",
                kid_role_name(k->role), (int)k->p.pid, kid_role_name(k->role), (int)k->p.pid,
                ctl_type_name(m->type));
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

/* Is (job, partition) in a READY or PROVING slot not owned by incarnation
 * quarantined (0: none; stuck.h)? Headers only. */
static int slot_live(struct core *c, const struct dsp_job *dj, uint32_t part,
                     uint32_t quarantined)
{
    for (uint32_t s = 0; s < c->pool.nslots; s++) {
        uint64_t w = slot_word(&c->pool, s);
        uint32_t st = slot_state_of(w);
        struct slot_header h;
        if ((st == SLOT_READY || (st == SLOT_PROVING && slot_owner_of(w) != quarantined)) &&
            slot_read_header(&c->pool, s, &h) == 0 && h.job_id == dj->num && h.partition == part)
            return 1;
    }
    return 0;
}

struct death_ctx {
    struct core *c;
    const struct kid_death *dd;
    int gpud;
    int held;
    uint32_t quarantined;      /* a gpud left behind: its PROVING slots are not live */
};

static int death_live(void *ctx, const struct dsp_job *dj, uint32_t part)
{
    struct death_ctx *x = ctx;
    return slot_live(x->c, dj, part, x->quarantined);
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
        fail_poisoned(x->c, j, part, x->dd->why);
    if (o == DSP_REQUEUED || o == DSP_REPROVE) /* the died line names the process, this the job */
        sup_log(LOG_WARN, "event=requeued job=%s partition=%u role=%s how=%s|job %s partition %u: "
                "%s; %s", j->id, part, x->gpud ? "gpud" : "synthd",
                o == DSP_REPROVE ? "reprove" : "resynthesize", j->id, part, x->dd->why,
                o == DSP_REPROVE ? "proving its slot again" : "synthesizing it again");
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
    slot_reclaim_owner(&c->pool, gpud ? k->index : 0, inc, &rep);
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
    struct death_ctx x = { c, &dd, gpud, 0, 0 };
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

/* k was SIGKILLed STUCK_GRACE_NS ago and has not exited (stuck.h): its
 * work is written off, its slots stay quarantined, a new one takes its
 * place. */
static void leave_behind(struct core *c, struct kid *k, uint64_t now)
{
    drain(c, k); /* what it sent before it stuck still counts */
    if (!k->alive)
        return;
    int gpud = k->role == ROLE_GPUD;
    uint32_t inc = k->p.incarnation, slots[4];
    unsigned nq = stuck_slots(&c->pool, inc, slots, 4);
    char work[200] = "", qs[64] = "";
    struct job *j = !gpud && k->holding ? running_job(c, k->job_num, k->part) : NULL;
    uint32_t part = k->part;
    for (unsigned i = 0; i < nq && i < 4; i++)
        snprintf(qs + strlen(qs), sizeof(qs) - strlen(qs), "%s%u", i ? ", " : "", slots[i]);
    if (j)
        snprintf(work, sizeof(work), "job %s partition %u (%.64s)", j->id, part,
                 j->parts[part].wname);
    else if (gpud && c->dsp.gpuds[k->index].holding)
        snprintf(work, sizeof(work), "%u partitions taken", c->dsp.gpuds[k->index].holding);
    struct stuck_child *s = kids_leave_behind(&c->kids, k, work, now);
    if (!s)
        return; /* STUCK_MAX already: it keeps its place until it exits */
    if (nq)
        sup_log(LOG_WARN, "event=quarantine role=%s pid=%d slots=%u|%s pid %d: slot%s %s "
                "quarantined until it exits", gpud ? "gpud" : "synthd", (int)s->p.pid, nq,
                gpud ? "gpud" : "synthd", (int)s->p.pid, nq > 1 ? "s" : "", qs);
    if (j) {
        /* the file that hung it would hang the next reader too: the job
         * fails, naming the witness, rather than being retried */
        apply(c, j, part, DSP_EV_FAILED, inc);
        core_fail_job(c, j, FAIL_STUCK,
                      "partition %u (%s): synthd pid %d was stuck (%s) and still alive %.0f s "
                      "after SIGKILL (state %c: asleep in the kernel, a read of %s on a hung "
                      "filesystem?); not retried; %s%s%s",
                      part, j->parts[part].wname, (int)s->p.pid, s->reason,
                      (now - s->killed_ns) / 1e9, s->state ? s->state : '?',
                      j->parts[part].wname, nq ? "its slot " : "no slot held",
                      qs, nq ? " is quarantined until it exits" : "");
    } else if (gpud) {
        /* its partitions are synthesized again: the slots it was proving
         * stay quarantined, so they are not live */
        struct kid_death dd = { .cause = DSP_CAUSE_EXTERNAL };
        snprintf(dd.why, sizeof(dd.why), "%s", k->last_exit);
        struct death_ctx x = { c, &dd, 1, 0, inc };
        struct dsp_event ev = { .type = DSP_EV_GPUD_DIED, .who = k->index,
                                .cause = DSP_CAUSE_EXTERNAL, .now_ns = now };
        dispatch_death(&c->dsp, &ev, death_live, death_outcome, &x);
    }
}

/* A child left behind has exited at last: its quarantined slots are freed
 * (its work was written off when it was left behind). */
static void stuck_exited(struct core *c, struct stuck_child *s)
{
    static struct reclaim_report rep;
    if (proc_reap(&s->p) != 1)
        return;
    slot_reclaim_owner(&c->pool, s->gpud ? s->index : 0, s->p.incarnation, &rep);
    for (uint32_t i = 0; i < rep.n_readied; i++)
        slot_force_free(&c->pool, rep.readied[i].slot, rep.readied[i].gen);
    stuck_reap(&c->kids.stuck, s, now_ns());
}

void core_on_fd(struct core *c, int fd)
{
    if (fd == c->intake.done_fd) {
        struct intake_task *t;
        while ((t = intake_collect(&c->intake)))
            core_intake_done(c, t);
        return;
    }
    struct stuck_child *sc = stuck_by_fd(&c->kids.stuck, fd);
    if (sc) {
        stuck_exited(c, sc);
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
    if (c->draining >= DRAIN_NO_DISPATCH)
        return;
    foreign_share(c);
    for (unsigned i = 0; i < c->kids.nsynthds; i++) {
        struct kid *k = &c->kids.kids[i];
        struct dsp_job *dj;
        uint32_t p;
        /* a stopped synthd (SIGSTOP) gets nothing new to hold */
        if (k->state != KID_IDLE || k->stopped_since_ns || !dispatch_next(&c->dsp, now, &dj, &p))
            continue;
        struct job *j = job_of(dj);
        if (synth_share_wait(&c->kids, &c->keys.keys[dj->key_id], dj->key_id, k))
            continue; /* another synthd is building the key's index: map it after */
        if (core_send_key(c, k, dj->key_id) < 0)
            continue; /* its socket is gone: the exit handler will see to it */
        ctl_init(&m, CTL_SYNTH);
        m.job_id = dj->num;
        m.partition = p;
        m.key_id = dj->key_id;
        int g = dispatch_pick_gpud(&c->dsp, dj->key_id);
        m.gpud = g < 0 ? 0 : (uint32_t)g;
        m.pin = j->parts[p].pin; /* synthd checks what it reads against it */
        ctl_text(&m, "%s", j->parts[p].wname);
        /* an input's: [input, program, its companions (witness_companions_pin)] */
        int sfds[4] = { j->parts[p].wfd, j->prog_fd, j->prog_aux[0], j->prog_aux[1] };
        int nsfds = 1;
        m.synth_mode = CTL_SYNTH_WITNESS;
        if (j->prog_fd >= 0) {
            m.synth_mode = CTL_SYNTH_INPUT;
            witness_job_text(&m, j->parts[p].wname, j->prog_path);
            nsfds = 2 + (j->prog_aux[0] >= 0) + (j->prog_aux[1] >= 0);
        }
        if (ctl_send(k->p.ctl, &m, sfds, nsfds) < 0)
            continue;
        apply(c, j, p, DSP_EV_SYNTH_START, k->p.incarnation);
        core_note_synth_start(c, &j->parts[p], now);
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

void core_tick(struct core *c, uint64_t now)
{
    kids_tick(&c->kids, now, c->draining);
    for (unsigned i = 0; i < c->kids.nkids; i++)
        if (kids_is_stuck(&c->kids.kids[i], now))
            leave_behind(c, &c->kids.kids[i], now);
    core_intake_deadlines(c, now);
    /* every gpud gets the keys of running jobs; a KEY_LOAD that found its
     * socket full is sent again here */
    uint64_t need = core_busy_keys(c);
    for (unsigned g = 0; need && g < c->kids.ngpuds; g++) {
        struct kid *k = kids_gpud(&c->kids, g);
        for (uint32_t id = 0; id < CTL_MAX_KEYS; id++)
            if ((need >> id & 1) && !(k->keys_sent >> id & 1) && c->keys.keys[id].used &&
                !c->keys.keys[id].failed)
                core_send_key(c, k, id);
    }
    dispatch_idle(c, now);
    if (c->pool.hdr && now - c->last_guard_ns > 1000000000ull) { /* pool_guard.h */
        unsigned fields, slots;
        pool_guard_check(&c->pool_guard, &c->pool, &fields, &slots);
        c->last_guard_ns = now;
        c->c.pool_fields_repaired += fields;
        c->c.pool_slots_repaired += slots;
        if (fields || slots)
            sup_log(LOG_ERR, "event=pool_repaired fields=%u slots=%u|the slot pool's control page "
                    "was overwritten: %u layout fields written back from the supervisor's copy, "
                    "%u slot words holding no state set FREE (a bug, or a process writing the "
                    "pool: please report it)", fields, slots, fields, slots);
    }
    if (now - c->last_purge_ns > 1000000000ull) {
        jobs_purge(&c->jobs, now, (uint64_t)c->o.result_ttl_s * 1000000000ull, job_held,
                   job_gone, c);
        c->last_purge_ns = now;
    }
}

/* ---- submit --------------------------------------------------------------- */

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
