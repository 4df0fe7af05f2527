/*
 * status.c — the daemon's status object (`slotprove status`).
 *
 * Buffer counters come from the slot table itself (pool_counts), never from
 * counters kept alongside it, so they cannot drift. Group memory is the sum
 * of Pss (smaps_rollup) over the supervisor and its children: the shared
 * slot pool shows in full in every mapper's RssShmem but counts once in Pss.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_end.h"
#include "pipeline.h"
#include "pool_scan.h"
#include "status.h"
#include "slot.h"
#include "version.h"

static long pss_kib(pid_t pid)
{
    char path[64], line[256];
    long v = 0;
    snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "Pss:", 4) == 0)
            v = strtol(line + 4, NULL, 10);
    fclose(f);
    return v;
}

static json_t *processes(struct core *d, uid_t viewer, long *group_pss)
{
    static const char *const states[] = { "starting", "idle", "busy", "backoff", "stopped" };
    json_t *a = json_array();
    long self = pss_kib(getpid());
    uint64_t now = now_ns();
    *group_pss = self;
    json_array_append_new(a, json_pack("{sssisssI}", "role", "supervisor", "pid", (int)getpid(),
                                       "state", "running", "pss_kib", (json_int_t)self));
    for (unsigned i = 0; i < d->kids.nkids; i++) {
        struct kid *k = &d->kids.kids[i];
        long pss = k->alive ? pss_kib(k->p.pid) : 0;
        *group_pss += pss;
        json_t *o = json_pack("{sssisssIsIsIsi}", "role", k->role == ROLE_GPUD ? "gpud" : "synthd",
                              "pid", k->alive ? (int)k->p.pid : 0,
                              "state", k->alive && k->stalled ? "stalled" : states[k->state],
                              "rss_anon_kib", (json_int_t)k->rss_anon_kib,
                              "rss_shmem_kib", (json_int_t)k->rss_shmem_kib,
                              "pss_kib", (json_int_t)pss, "restarts", (int)k->restarts);
        json_object_set_new(o, "index", json_integer(k->index));
        json_object_set_new(o, "stalls", json_integer(k->stalls));
        json_object_set_new(o, "incarnation", json_integer(k->p.incarnation));
        if (k->role == ROLE_GPUD) {
            json_object_set_new(o, "proofs", json_integer((json_int_t)k->proofs));
            json_object_set_new(o, "busy_ns", json_integer((json_int_t)k->busy_ns));
        }
        if (k->role == ROLE_GPUD && k->dev_budget) /* a backend with device memory */
            json_object_set_new(o, "device_memory",
                                json_pack("{sIsI}", "budget_bytes", (json_int_t)k->dev_budget,
                                          "held_bytes", (json_int_t)k->dev_held));
        if (k->role == ROLE_GPUD && k->backend[0])
            json_object_set_new(o, "backend", json_string(k->backend));
        if (k->last_exit[0]) /* a child that never exited has none */
            json_object_set_new(o, "last_exit", json_string(k->last_exit));
        if (k->state == KID_STOPPED)
            json_object_set_new(o, "stop_reason", json_string(k->stop_reason));
        if (k->state == KID_BACKOFF) {
            double left = k->respawn_at_ns > now ? (k->respawn_at_ns - now) / 1e9 : 0;
            json_object_set_new(o, "respawn_in_s", json_real(left));
            if (k->stop_reason[0])
                json_object_set_new(o, "backoff_reason", json_string(k->stop_reason));
        }
        struct job *j = k->holding ? jobs_by_num(&d->jobs, k->job_num) : NULL;
        if (j && (viewer == geteuid() || viewer == j->uid)) { /* others' job ids stay hidden */
            json_object_set_new(o, "job", json_string(j->id));
            json_object_set_new(o, "partition", json_integer(k->part));
        }
        json_array_append_new(a, o);
    }
    /* children left behind after a SIGKILL that did not take (stuck.h) */
    for (unsigned i = 0; i < d->kids.stuck.n; i++) {
        const struct stuck_child *s = &d->kids.stuck.c[i];
        uint32_t slots[POOL_MAX_SLOTS];
        unsigned n = stuck_slots(&d->pool, s->p.incarnation, slots, POOL_MAX_SLOTS);
        json_t *q = json_array();
        for (unsigned k = 0; k < n && k < POOL_MAX_SLOTS; k++)
            json_array_append_new(q, json_integer(slots[k]));
        char st[2] = { s->state ? s->state : '?', 0 };
        json_t *o = json_pack("{sssisssssisisfsfssssso}", "role", s->gpud ? "gpud" : "synthd",
                              "pid", (int)s->p.pid, "state", "stuck", "proc_state", st,
                              "index", (int)s->index, "incarnation", (int)s->p.incarnation,
                              "killed_s_ago", (now - s->killed_ns) / 1e9,
                              "left_behind_s_ago", (now - s->left_ns) / 1e9,
                              "kill_reason", s->reason, "work_written_off", s->work,
                              "quarantined_slots", q);
        json_array_append_new(a, o);
    }
    return a;
}

char *status_json(struct core *d, uid_t viewer, const struct sizing *sz)
{
    struct pool_counts pc;
    char buffers[200];
    long group_pss = 0;
    uint64_t now = now_ns();

    pool_counts(&d->pool, &pc);
    pool_format_buffers(&d->pool, "status", buffers, sizeof(buffers));
    json_t *slots = json_object();
    for (int s = 0; s < SLOT_NSTATES; s++)
        json_object_set_new(slots, slot_state_name((uint32_t)s),
                            json_pack("{sisI}", "count", (int)pc.slots[s], "bytes",
                                      (json_int_t)pc.bytes[s]));
    /* FILLING or PROVING slots of children left behind (stuck.h): not
     * reused until those exit (counted in their state above too) */
    unsigned nq = 0;
    for (unsigned i = 0; i < d->kids.stuck.n; i++)
        nq += stuck_slots(&d->pool, d->kids.stuck.c[i].p.incarnation, NULL, 0);
    json_object_set_new(slots, "slot_bytes", json_integer((json_int_t)d->pool.slot_bytes));
    json_object_set_new(slots, "total", json_integer(d->pool.nslots));

    unsigned js[4] = { 0 }, parts[DSP_FAILED + 1];
    for (struct job *j = d->jobs.head; j; j = j->next)
        if (viewer == geteuid() || viewer == j->uid) /* a user sees their own jobs; the daemon's user all */
            js[j->state]++;
    dispatch_counts(&d->dsp, parts);
    unsigned queued = parts[DSP_QUEUED];
    unsigned recent = 0, ring = sizeof(d->done_ns) / sizeof(d->done_ns[0]);
    for (unsigned i = 0; i < ring && i < d->done_head; i++)
        recent += now - d->done_ns[i] < 60000000000ull;

    json_t *o = json_object();
    json_object_set_new(o, "ok", json_true());
    json_t *st = json_object();
    json_object_set_new(st, "version", json_string(SLOTPROVE_VERSION));
    json_object_set_new(st, "commit", json_string(slotprove_commit));
    json_object_set_new(st, "uptime_s", json_integer((json_int_t)((now - d->started_ns) / 1000000000ull)));
    json_object_set_new(st, "processes", processes(d, viewer, &group_pss));
    json_object_set_new(st, "group_pss_kib", json_integer(group_pss));
    json_object_set_new(st, "slots", slots);
    json_object_set_new(st, "quarantined_slots",
                        json_pack("{sisI}", "count", (int)nq, "bytes",
                                  (json_int_t)nq * (json_int_t)d->pool.slot_bytes));
    if (d->o.synth_plan[0]) /* serve's pick of synthds and threads (synth_plan.h) */
        json_object_set_new(st, "synthesis",
                            json_pack("{sisiss}", "synthds", (int)d->o.synthds, "threads",
                                      (int)(d->o.synth_threads ? d->o.synth_threads : d->o.threads),
                                      "plan", d->o.synth_plan));
    json_object_set_new(st, "buffers", json_string(buffers));
    json_object_set_new(st, "jobs", json_pack("{sisisisisi}", "running", (int)js[JOB_RUNNING],
                                              "done", (int)js[JOB_DONE], "failed",
                                              (int)js[JOB_FAILED], "cancelled",
                                              (int)js[JOB_CANCELLED], "partitions_queued",
                                              (int)queued));
    json_object_set_new(st, "proofs_per_second_1m", json_real(recent / 60.0));
    json_object_set_new(st, "counters",
                        json_pack("{sIsIsIsIsIsIsIsIsIsIsI}", "proofs", (json_int_t)d->c.proofs,
                                  "jobs_done", (json_int_t)d->c.jobs_done, "jobs_failed",
                                  (json_int_t)d->c.jobs_failed, "reproved_from_shm",
                                  (json_int_t)d->c.reproved_from_shm, "resynthesized",
                                  (json_int_t)d->c.resynthesized, "synthd_deaths",
                                  (json_int_t)d->c.synthd_deaths, "gpud_deaths",
                                  (json_int_t)d->c.gpud_deaths, "rss_kills",
                                  (json_int_t)d->kids.rss_kills, "stall_kills",
                                  (json_int_t)d->kids.stall_kills, "duplicate_results",
                                  (json_int_t)d->c.duplicate_results, "late_results",
                                  (json_int_t)d->c.late_results));
    json_t *counters = json_object_get(st, "counters");
    json_object_set_new(counters, "left_behind_stuck", json_integer((json_int_t)d->kids.stuck.total));
    json_object_set_new(counters, "pool_fields_repaired",
                        json_integer((json_int_t)d->c.pool_fields_repaired));
    json_object_set_new(counters, "pool_slots_repaired",
                        json_integer((json_int_t)d->c.pool_slots_repaired));
    json_t *by = json_object();
    for (int k = 0; k < FAIL_NCAUSES; k++)
        json_object_set_new(by, fail_cause_name((enum fail_cause)k),
                            json_integer((json_int_t)d->c.jobs_failed_by[k]));
    json_object_set_new(counters, "jobs_failed_by_cause", by);
    json_object_set_new(st, "pipeline", core_pipeline_json(d));
    /* preloaded keys by name and SHA-256: what fleetd offers the fleet */
    json_t *keys = json_array();
    for (unsigned i = 0; i < CTL_MAX_KEYS; i++) {
        const struct key_entry *k = &d->keys.keys[i];
        char hex[65];
        if (!k->used || !k->preloaded || k->failed || !k->alias[0])
            continue;
        for (int b = 0; b < 32; b++)
            snprintf(hex + 2 * b, 3, "%02x", k->hash[b]);
        json_array_append_new(keys, json_pack("{ssss}", "name", k->alias, "sha256", hex));
    }
    json_object_set_new(st, "keys", keys);
    json_object_set_new(st, "intake", json_pack("{sisisI}", "running", (int)d->intake.running,
                                                "abandoned_stuck", (int)d->intake.abandoned,
                                                "abandoned_total",
                                                (json_int_t)d->intake.abandoned_total));
    json_object_set_new(st, "draining", json_boolean(d->draining));
    if (sz)
        json_object_set_new(st, "sizing",
                            json_pack("{sIsssIsisssIsssiss}", "memory_usable_bytes",
                                      (json_int_t)sz->usable_bytes, "memory_usable_from",
                                      sz->usable_from, "pool_budget_bytes",
                                      (json_int_t)sz->pool_budget_bytes, "slots",
                                      (int)d->o.slots, "slots_from", sz->slots_from,
                                      "slot_bytes", (json_int_t)d->o.slot_bytes,
                                      "slot_bytes_from", sz->slot_bytes_from, "gpuds",
                                      (int)d->o.gpuds, "gpuds_from", sz->gpuds_from));
    json_object_set_new(json_object_get(st, "sizing"), "prefaulted", json_boolean(!d->o.lazy_pool));
    json_object_set_new(o, "status", st);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}
