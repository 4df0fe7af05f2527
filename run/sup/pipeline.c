/*
 * pipeline.c — where a partition's time goes: the supervisor's pipeline
 * counters (status "pipeline") and serve --trace-times lines.
 *
 * Every figure comes from a report the supervisor receives anyway: SYNTH
 * (sent), SYNTH_DONE (synthd's slot wait, wall and CPU time) and PROVED
 * (gpud's stage times). All clocks are CLOCK_MONOTONIC, which every process
 * of the group shares. Nothing here reads a slot.
 */
#include <jansson.h>

#include "log.h"
#include "pipeline.h"

static uint64_t key_rows(const struct core *c, const struct job *j)
{
    const struct key_entry *ke = &c->keys.keys[j->d.key_id];
    return ke->used ? ke->shape.domain_size : 0;
}

void core_note_synth_start(struct core *c, struct job_part *jp, uint64_t now)
{
    jp->t_synth_ns = now;
    if (jp->t_first_synth_ns || !jp->t_queued_ns)
        return; /* a retry is not queue wait */
    jp->t_first_synth_ns = now;
    uint64_t w = now - jp->t_queued_ns;
    c->pc.queue_wait_ns += w;
    if (w > c->pc.queue_wait_max_ns)
        c->pc.queue_wait_max_ns = w;
}

void core_note_synthesized(struct core *c, const struct job *j, struct job_part *jp,
                           const struct ctl_msg *m)
{
    jp->synth_ns = m->times.ns[STAGE_SYNTH];
    jp->slot_wait_ns = m->slot_wait_ns;
    jp->synth_cpu_ns = m->cpu_ns;
    jp->t_published_ns = now_ns();
    c->pc.synth_partitions++;
    c->pc.synth_rows += key_rows(c, j);
    c->pc.synth_ns += jp->synth_ns;
    c->pc.synth_cpu_ns += m->cpu_ns;
    c->pc.slot_wait_ns += m->slot_wait_ns;
    c->pc.slot_waits += m->slot_wait_ns > 1000000;
    if (m->slot_wait_ns > c->pc.slot_wait_max_ns)
        c->pc.slot_wait_max_ns = m->slot_wait_ns;
}

void core_note_proved(struct core *c, const struct job *j, uint32_t part, uint32_t gpud,
                      const struct stage_times *t)
{
    const struct job_part *jp = &j->parts[part];
    uint64_t now = now_ns(), busy = t->ns[STAGE_PROVE] + t->ns[STAGE_VERIFY];
    c->pc.prover_busy_ns += busy;
    if (!c->o.trace_times)
        return;
    uint64_t taken = now - busy; /* gpud's take, on the supervisor's clock */
    uint64_t queue = jp->t_queued_ns && jp->t_first_synth_ns ? jp->t_first_synth_ns - jp->t_queued_ns : 0;
    uint64_t ready = jp->t_published_ns && taken > jp->t_published_ns ? taken - jp->t_published_ns : 0;
    sup_log(LOG_WARN,
            "event=times job=%s part=%u gpud=%u rows=%llu done_ns=%llu queue_ns=%llu "
            "slot_wait_ns=%llu synth_ns=%llu synth_cpu_ns=%llu ready_ns=%llu prove_ns=%llu "
            "verify_ns=%llu latency_ns=%llu",
            j->id, part, gpud, (unsigned long long)key_rows(c, j),
            (unsigned long long)now, (unsigned long long)queue,
            (unsigned long long)jp->slot_wait_ns, (unsigned long long)jp->synth_ns,
            (unsigned long long)jp->synth_cpu_ns, (unsigned long long)ready,
            (unsigned long long)t->ns[STAGE_PROVE], (unsigned long long)t->ns[STAGE_VERIFY],
            (unsigned long long)(jp->t_synth_ns ? now - jp->t_synth_ns : 0));
}

void *core_pipeline_json(const struct core *c)
{
    const struct pipeline_counters *p = &c->pc;
    json_t *o = json_object();
    json_object_set_new(o, "now_ns", json_integer((json_int_t)now_ns()));
    json_object_set_new(o, "prover_busy_ns", json_integer((json_int_t)p->prover_busy_ns));
    json_object_set_new(o, "synth_partitions", json_integer((json_int_t)p->synth_partitions));
    json_object_set_new(o, "synth_rows", json_integer((json_int_t)p->synth_rows));
    json_object_set_new(o, "synth_ns", json_integer((json_int_t)p->synth_ns));
    json_object_set_new(o, "synth_cpu_ns", json_integer((json_int_t)p->synth_cpu_ns));
    json_object_set_new(o, "slot_waits", json_integer((json_int_t)p->slot_waits));
    json_object_set_new(o, "slot_wait_ns", json_integer((json_int_t)p->slot_wait_ns));
    json_object_set_new(o, "slot_wait_max_ns", json_integer((json_int_t)p->slot_wait_max_ns));
    json_object_set_new(o, "queue_wait_ns", json_integer((json_int_t)p->queue_wait_ns));
    json_object_set_new(o, "queue_wait_max_ns", json_integer((json_int_t)p->queue_wait_max_ns));
    return o;
}
