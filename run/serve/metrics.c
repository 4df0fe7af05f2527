/* metrics.c — the Prometheus endpoint (see metrics.h). */
#include "metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "job_end.h"
#include "jobs.h"
#include "kids.h"
#include "metrics_http.h"
#include "pool_scan.h"
#include "slot.h"
#include "version.h"

/* job latency and proof duration buckets, seconds (le) */
static const double bucket_s[] = { 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800 };
#define NBUCKETS (sizeof(bucket_s) / sizeof(bucket_s[0]))

/* A histogram's counts (not cumulative here), count and sum. */
struct histogram {
    uint64_t bucket[NBUCKETS];
    uint64_t count;
    double sum_s;
};

static void observe(struct histogram *h, double s)
{
    h->count++;
    h->sum_s += s;
    for (size_t i = 0; i < NBUCKETS; i++)
        if (s <= bucket_s[i]) {
            h->bucket[i]++;
            break;
        }
}

struct metrics {
    struct metrics_http *http;
    pthread_mutex_t mu;
    char *page;                /* under mu */
    size_t page_len;
    uint64_t last_ns;
    /* supervisor thread only */
    uint64_t start_ns;         /* metrics_start: the uptime's origin */
    int cuzk_aliases;          /* --metrics-cuzk-aliases */
    struct histogram latency;  /* jobs done: submit to end */
    struct histogram proof;    /* proofs accepted: gpud take to checked proof */
    uint64_t ended[4];         /* by enum job_state */
};

/* metrics_page_fn: a copy of the latest page, taken under the mutex */
static char *page_copy(void *ctx, size_t *len)
{
    struct metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    char *copy = malloc(m->page_len ? m->page_len : 1);
    if (copy) {
        memcpy(copy, m->page, m->page_len);
        *len = m->page_len;
    }
    pthread_mutex_unlock(&m->mu);
    return copy;
}

struct metrics *metrics_start(const char *addr_port, int cuzk_aliases, struct sp_err *e)
{
    struct metrics *m = calloc(1, sizeof(*m));
    if (!m || !(m->page = strdup(""))) {
        free(m);
        sp_fail(e, -ENOMEM, "--metrics %s: out of memory", addr_port);
        return NULL;
    }
    pthread_mutex_init(&m->mu, NULL);
    m->start_ns = now_ns();
    m->cuzk_aliases = cuzk_aliases;
    if (metrics_http_start(addr_port, page_copy, m, &m->http, e) < 0) {
        pthread_mutex_destroy(&m->mu);
        free(m->page);
        free(m);
        return NULL;
    }
    return m;
}

void metrics_job_ended(struct metrics *m, const struct job *j)
{
    if (!m)
        return;
    m->ended[j->state]++;
    if (j->state != JOB_DONE || j->t_end_ns < j->t_submit_ns)
        return;
    observe(&m->latency, (j->t_end_ns - j->t_submit_ns) / 1e9);
}

void metrics_proved(struct metrics *m, uint64_t busy_ns)
{
    if (m)
        observe(&m->proof, busy_ns / 1e9);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(FILE *f, const char *name, const char *type, const char *help, double v)
{
    head(f, name, type, help);
    fprintf(f, "%s %.17g\n", name, v);
}

static void histogram(FILE *f, const char *name, const char *help, const struct histogram *h)
{
    head(f, name, "histogram", help);
    uint64_t cum = 0;
    for (size_t i = 0; i < NBUCKETS; i++) {
        cum += h->bucket[i];
        fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", name, bucket_s[i], (unsigned long long)cum);
    }
    fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)h->count);
    fprintf(f, "%s_sum %.17g\n", name, h->sum_s);
    fprintf(f, "%s_count %llu\n", name, (unsigned long long)h->count);
}

/* Which of a gpud's figures (struct kid) a per-gpud family shows. */
enum gpud_figure { GPUD_BUSY_S, GPUD_DEV_BUDGET, GPUD_DEV_HELD, GPUD_PROOFS };

/* A per-gpud family: HELP and TYPE, then NAME{index="I"} VALUE for each
 * gpud in index order. Device memory only for the gpuds whose backend
 * reports it (dev_budget set: CUDA); a CPU gpud has none and no series. */
static void gpud_family(FILE *f, struct kid_table *t, const char *name, const char *type,
                        const char *help, enum gpud_figure what)
{
    head(f, name, type, help);
    for (unsigned i = 0; i < t->ngpuds; i++) {
        const struct kid *k = kids_gpud(t, i);
        if ((what == GPUD_DEV_BUDGET || what == GPUD_DEV_HELD) && !k->dev_budget)
            continue;
        fprintf(f, "%s{index=\"%u\"} ", name, k->index);
        switch (what) {
        case GPUD_BUSY_S: fprintf(f, "%.17g\n", k->busy_ns / 1e9); break;
        case GPUD_DEV_BUDGET: fprintf(f, "%llu\n", (unsigned long long)k->dev_budget); break;
        case GPUD_DEV_HELD: fprintf(f, "%llu\n", (unsigned long long)k->dev_held); break;
        case GPUD_PROOFS: fprintf(f, "%llu\n", (unsigned long long)k->proofs); break;
        }
    }
}

/* --metrics-cuzk-aliases: the series of cuzk's GetMetrics (Curio's proving
 * daemon) with cuzk's meanings. A cuzk request (a PoRep C2 of several
 * partitions, say) is a slotprove job: completed and failed count jobs; a
 * job is running while a partition of it is in synthesis or proving, and
 * queued while none is; the duration summary is jobs' submit to end. */
static void cuzk_series(const struct metrics *m, struct core *c, FILE *f, uint64_t up)
{
    unsigned running = 0, queued = 0;
    for (const struct job *j = c->jobs.head; j; j = j->next) {
        if (j->state != JOB_RUNNING)
            continue;
        int busy = 0;
        for (uint32_t i = 0; i < j->d.nparts && !busy; i++)
            busy = j->d.parts[i].state >= DSP_SYNTH && j->d.parts[i].state <= DSP_TAKEN;
        busy ? running++ : queued++;
    }
    one(f, "cuzk_proofs_completed_total", "counter", "Jobs done (cuzk: requests completed).",
        (double)m->ended[JOB_DONE]);
    one(f, "cuzk_proofs_failed_total", "counter", "Jobs failed, all causes.",
        (double)c->c.jobs_failed);
    one(f, "cuzk_uptime_seconds", "gauge", "Whole seconds since the daemon started.", (double)up);
    one(f, "cuzk_queue_depth", "gauge", "Jobs running none of whose partitions has started.",
        queued);
    one(f, "cuzk_running_jobs", "gauge", "Jobs with a partition in synthesis or proving.", running);
    one(f, "cuzk_gpu_workers", "gauge", "gpud processes.", c->kids.ngpuds);
    head(f, "cuzk_proof_duration_seconds", "summary", "Jobs done: submit to end (count and sum).");
    fprintf(f, "cuzk_proof_duration_seconds_count %llu\n", (unsigned long long)m->latency.count);
    fprintf(f, "cuzk_proof_duration_seconds_sum %.17g\n", m->latency.sum_s);
}

static void render(struct metrics *m, struct core *c, FILE *f)
{
    unsigned parts[DSP_FAILED + 1];
    struct pool_counts pc;
    dispatch_counts(&c->dsp, parts);
    pool_counts(&c->pool, &pc);

    head(f, "slotprove_build_info", "gauge", "Always 1: the version and git commit of this build.");
    fprintf(f, "slotprove_build_info{version=\"%s\",commit=\"%s\"} 1\n", SLOTPROVE_VERSION,
            slotprove_commit);
    one(f, "slotprove_proofs_total", "counter", "Partitions proved and returned.", (double)c->c.proofs);
    head(f, "slotprove_jobs_ended_total", "counter", "Jobs ended, by how they ended.");
    static const char *const st[] = { "running", "done", "failed", "cancelled" };
    for (int s = 1; s < 4; s++)
        fprintf(f, "slotprove_jobs_ended_total{state=\"%s\"} %llu\n", st[s],
                (unsigned long long)m->ended[s]);
    head(f, "slotprove_jobs_failed_total", "counter", "Jobs failed, by cause.");
    for (int k = 0; k < FAIL_NCAUSES; k++)
        fprintf(f, "slotprove_jobs_failed_total{cause=\"%s\"} %llu\n",
                fail_cause_name((enum fail_cause)k), (unsigned long long)c->c.jobs_failed_by[k]);
    one(f, "slotprove_jobs_running", "gauge", "Jobs running.", jobs_active(&c->jobs));
    uint64_t up = (now_ns() - m->start_ns) / 1000000000ull;
    one(f, "slotprove_uptime_seconds", "gauge", "Whole seconds since the daemon started.",
        (double)up);
    one(f, "slotprove_queue_partitions", "gauge", "Partitions submitted and waiting for a synthd.",
        parts[DSP_QUEUED]);
    head(f, "slotprove_partitions", "gauge", "Partitions of running jobs, by state.");
    static const char *const ps[] = { "queued", "synth", "published", "taken", "done", "failed" };
    for (int s = 0; s <= DSP_FAILED; s++)
        fprintf(f, "slotprove_partitions{state=\"%s\"} %u\n", ps[s], parts[s]);
    head(f, "slotprove_slots", "gauge", "Shared-memory slots, by state (from the slot table).");
    for (int s = 0; s < SLOT_NSTATES; s++)
        fprintf(f, "slotprove_slots{state=\"%s\"} %u\n", slot_state_name((uint32_t)s),
                (unsigned)pc.slots[s]);
    one(f, "slotprove_slot_bytes", "gauge", "Bytes per slot.", (double)c->pool.slot_bytes);
    unsigned nq = 0;
    for (unsigned i = 0; i < c->kids.stuck.n; i++)
        nq += stuck_slots(&c->pool, c->kids.stuck.c[i].p.incarnation, NULL, 0);
    one(f, "slotprove_slots_quarantined", "gauge",
        "Slots held by children left behind stuck (also counted in their state).", nq);
    one(f, "slotprove_children_stuck", "gauge",
        "Children SIGKILLed that have not exited: left behind, their slots quarantined.",
        c->kids.stuck.n);
    one(f, "slotprove_children_left_behind_total", "counter",
        "Children left behind after a SIGKILL that did not take.", (double)c->kids.stuck.total);
    head(f, "slotprove_child_deaths_total", "counter", "Child processes that died, by role.");
    fprintf(f, "slotprove_child_deaths_total{role=\"synthd\"} %llu\n",
            (unsigned long long)c->c.synthd_deaths);
    fprintf(f, "slotprove_child_deaths_total{role=\"gpud\"} %llu\n",
            (unsigned long long)c->c.gpud_deaths);
    one(f, "slotprove_rss_kills_total", "counter", "synthds killed for passing --synth-rss-max.",
        (double)c->kids.rss_kills);
    one(f, "slotprove_stall_kills_total", "counter", "Children killed for a stall.",
        (double)c->kids.stall_kills);
    one(f, "slotprove_reproved_from_shm_total", "counter",
        "Slots proved again after a gpud death, without re-synthesis.",
        (double)c->c.reproved_from_shm);
    one(f, "slotprove_resynthesized_total", "counter",
        "Partitions synthesized again after a gpud death.", (double)c->c.resynthesized);
    head(f, "slotprove_child_restarts_total", "counter", "Restarts of each child.");
    for (unsigned i = 0; i < c->kids.nkids; i++) {
        struct kid *k = &c->kids.kids[i];
        fprintf(f, "slotprove_child_restarts_total{role=\"%s\",index=\"%u\"} %u\n",
                k->role == ROLE_GPUD ? "gpud" : "synthd", k->index, k->restarts);
    }
    head(f, "slotprove_child_up", "gauge", "1 when the child is running and has said hello.");
    for (unsigned i = 0; i < c->kids.nkids; i++) {
        struct kid *k = &c->kids.kids[i];
        fprintf(f, "slotprove_child_up{role=\"%s\",index=\"%u\"} %d\n",
                k->role == ROLE_GPUD ? "gpud" : "synthd", k->index,
                k->alive && (k->state == KID_IDLE || k->state == KID_BUSY));
    }
    one(f, "slotprove_gpuds", "gauge", "gpud processes (one per GPU, or one on the CPU).",
        c->kids.ngpuds);
    gpud_family(f, &c->kids, "slotprove_gpud_busy_seconds_total", "counter",
                "Each gpud's time from taking a slot to a checked proof.", GPUD_BUSY_S);
    gpud_family(f, &c->kids, "slotprove_gpud_device_memory_budget_bytes", "gauge",
                "Device memory each gpud may use (--gpu-mem less its context, or the free "
                "memory less a margin).", GPUD_DEV_BUDGET);
    gpud_family(f, &c->kids, "slotprove_gpud_device_memory_held_bytes", "gauge",
                "Device memory each gpud holds now (keys, buffers), within its budget.",
                GPUD_DEV_HELD);
    gpud_family(f, &c->kids, "slotprove_gpud_proofs_total", "counter",
                "Proofs returned by each gpud.", GPUD_PROOFS);
    one(f, "slotprove_prove_seconds_total", "counter",
        "gpud time from taking a slot to a checked proof, all gpuds.", c->pc.prover_busy_ns / 1e9);
    one(f, "slotprove_synthesis_seconds_total", "counter",
        "synthd wall time from claiming a slot to publishing it, all synthds.", c->pc.synth_ns / 1e9);
    one(f, "slotprove_synthesis_cpu_seconds_total", "counter", "synthd CPU time, all threads.",
        c->pc.synth_cpu_ns / 1e9);
    one(f, "slotprove_slot_wait_seconds_total", "counter", "synthds waiting for a free slot.",
        c->pc.slot_wait_ns / 1e9);
    one(f, "slotprove_draining", "gauge", "1 after SIGTERM: no new jobs.", c->draining != 0);
    histogram(f, "slotprove_job_latency_seconds", "Jobs done: submit to the last partition's proof.",
              &m->latency);
    histogram(f, "slotprove_proof_duration_seconds",
              "Proofs accepted: gpud's take of the slot to the checked proof.", &m->proof);
    if (m->cuzk_aliases)
        cuzk_series(m, c, f, up);
}

void metrics_tick(struct metrics *m, struct core *c, uint64_t now_ns)
{
    if (!m || now_ns - m->last_ns < METRICS_EVERY_MS * 1000000ull)
        return;
    m->last_ns = now_ns;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    render(m, c, f);
    if (fclose(f) != 0) {
        free(buf);
        return;
    }
    pthread_mutex_lock(&m->mu);
    char *old = m->page;
    m->page = buf;
    m->page_len = len;
    pthread_mutex_unlock(&m->mu);
    free(old);
}

void metrics_stop(struct metrics *m)
{
    if (!m)
        return;
    metrics_http_stop(m->http); /* first: its thread copies the page */
    pthread_mutex_destroy(&m->mu);
    free(m->page);
    free(m);
}
