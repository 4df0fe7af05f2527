/*
 * dispatch.c — the partition state machine (diagram and rules in dispatch.h).
 */
#include <stddef.h>

#include "dispatch.h"

void dispatch_init(struct dispatcher *d, unsigned ngpuds, unsigned max_attempts)
{
    *d = (struct dispatcher){ .max_attempts = max_attempts ? max_attempts : 1 };
    d->ngpuds = ngpuds < 1 ? 1 : ngpuds > DSP_MAX_GPUDS ? DSP_MAX_GPUDS : ngpuds;
}

void dispatch_add(struct dispatcher *d, struct dsp_job *j)
{
    j->prev = d->tail;
    j->next = NULL;
    if (d->tail)
        d->tail->next = j;
    else
        d->head = j;
    d->tail = j;
}

void dispatch_remove(struct dispatcher *d, struct dsp_job *j)
{
    if (!j->prev && d->head != j)
        return; /* not in the list */
    if (j->prev)
        j->prev->next = j->next;
    else
        d->head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        d->tail = j->prev;
    j->prev = j->next = NULL;
}

static void leave_taken(struct dispatcher *d, struct dsp_part *p)
{
    if (p->state == DSP_TAKEN && p->gpud < DSP_MAX_GPUDS && d->gpuds[p->gpud].holding)
        d->gpuds[p->gpud].holding--;
}

void dispatch_end(struct dispatcher *d, struct dsp_job *j)
{
    if (j->ended)
        return;
    j->ended = 1;
    for (uint32_t i = 0; i < j->nparts; i++)
        leave_taken(d, &j->parts[i]);
}

static uint64_t backoff_ns(uint32_t retries)
{
    uint64_t ns = DSP_BACKOFF_MIN_NS;
    for (uint32_t i = 1; i < retries && ns < DSP_BACKOFF_MAX_NS; i++)
        ns *= 2;
    return ns < DSP_BACKOFF_MAX_NS ? ns : DSP_BACKOFF_MAX_NS;
}

/* A death took the partition from its holder. */
static enum dsp_outcome died(struct dispatcher *d, struct dsp_part *p, const struct dsp_event *ev)
{
    leave_taken(d, p);
    p->synthd = 0;
    if (ev->slot_live) {
        /* its data is still in shared memory: READY, or PROVING going back
         * to READY after the reap; some gpud proves it again */
        int was_taken = p->state == DSP_TAKEN;
        p->state = DSP_PUBLISHED;
        if (!was_taken)
            return DSP_MOVED;
        if (ev->cause != DSP_CAUSE_EXTERNAL && ++p->attempts >= d->max_attempts) {
            p->state = DSP_FAILED;
            return DSP_POISONED;
        }
        return DSP_REPROVE;
    }
    if (ev->cause == DSP_CAUSE_EXTERNAL) {
        p->retries++;
        p->not_before_ns = ev->now_ns + backoff_ns(p->retries);
    } else if (++p->attempts >= d->max_attempts) {
        p->state = DSP_FAILED;
        return DSP_POISONED;
    } else {
        p->not_before_ns = 0;
    }
    p->state = DSP_QUEUED;
    return DSP_REQUEUED;
}

enum dsp_outcome dispatch_apply(struct dispatcher *d, struct dsp_job *j, uint32_t part,
                                const struct dsp_event *ev)
{
    if (part >= j->nparts)
        return DSP_STALE;
    struct dsp_part *p = &j->parts[part];
    if (j->ended || p->state == DSP_FAILED)
        return ev->type == DSP_EV_PROVED ? DSP_DUPLICATE : DSP_STALE;
    if (p->state == DSP_DONE)
        return ev->type == DSP_EV_PROVED ? DSP_DUPLICATE : DSP_STALE;

    switch (ev->type) {
    case DSP_EV_SYNTH_START:
        if (p->state != DSP_QUEUED)
            return DSP_STALE;
        p->state = DSP_SYNTH;
        p->synthd = ev->who;
        return DSP_MOVED;
    case DSP_EV_SYNTH_DONE:
        /* only the synthd that holds it now moves it on: an earlier holder's
         * late report is about work that was already written off */
        if (p->state != DSP_SYNTH || p->synthd != ev->who)
            return DSP_STALE;
        p->state = DSP_PUBLISHED;
        p->synthd = 0;
        return DSP_MOVED;
    case DSP_EV_TAKEN:
        /* TAKEN may overtake its SYNTH_DONE (two sockets, no order between
         * them); after a requeue a stale slot may still be taken: the
         * result will count all the same, so follow the gpud */
        if (ev->who >= DSP_MAX_GPUDS || p->state == DSP_QUEUED)
            return DSP_STALE;
        leave_taken(d, p);
        p->state = DSP_TAKEN;
        p->gpud = ev->who;
        p->synthd = 0;
        d->gpuds[ev->who].holding++;
        return DSP_MOVED;
    case DSP_EV_PROVED:
        leave_taken(d, p);
        p->state = DSP_DONE;
        p->synthd = 0;
        return ++j->ndone == j->nparts ? DSP_JOB_DONE : DSP_PART_DONE;
    case DSP_EV_FAILED:
        leave_taken(d, p);
        p->state = DSP_FAILED;
        return DSP_FAILED_OUT;
    case DSP_EV_SYNTHD_DIED:
        if (p->state != DSP_SYNTH || p->synthd != ev->who)
            return DSP_STALE;
        return died(d, p, ev);
    case DSP_EV_GPUD_DIED:
        if (p->state == DSP_TAKEN ? p->gpud != ev->who
                                  : p->state != DSP_PUBLISHED || ev->slot_live)
            return DSP_STALE;
        return died(d, p, ev);
    }
    return DSP_STALE;
}

static int key_on_some_gpud(const struct dispatcher *d, uint32_t key_id)
{
    if (key_id >= DSP_MAX_KEYS)
        return 0;
    for (unsigned g = 0; g < d->ngpuds; g++)
        if (d->gpuds[g].up && (d->gpuds[g].keys >> key_id & 1))
            return 1;
    return 0;
}

/* Partitions of uid's running jobs being synthesized now. */
static unsigned synthesizing(const struct dispatcher *d, uint32_t uid)
{
    unsigned n = 0;
    for (const struct dsp_job *j = d->head; j; j = j->next)
        if (!j->ended && j->uid == uid)
            for (uint32_t i = 0; i < j->nparts; i++)
                n += j->parts[i].state == DSP_SYNTH;
    return n;
}

int dispatch_next(const struct dispatcher *d, uint64_t now_ns, struct dsp_job **jo,
                  uint32_t *po)
{
    for (struct dsp_job *j = d->head; j; j = j->next) {
        if (j->ended || !key_on_some_gpud(d, j->key_id))
            continue;
        if (d->share_capped && j->uid != d->own_uid &&
            synthesizing(d, j->uid) >= d->foreign_share)
            continue; /* its share is taken: another uid's work goes first */
        for (uint32_t i = 0; i < j->nparts; i++)
            if (j->parts[i].state == DSP_QUEUED && j->parts[i].not_before_ns <= now_ns) {
                *jo = j;
                *po = i;
                return 1;
            }
    }
    return 0;
}

int dispatch_pick_gpud(struct dispatcher *d, uint32_t key_id)
{
    int best = -1;
    if (key_id >= DSP_MAX_KEYS)
        return -1;
    for (unsigned n = 0; n < d->ngpuds; n++) {
        unsigned g = (d->next_gpud + n) % d->ngpuds;
        if (!d->gpuds[g].up || !(d->gpuds[g].keys >> key_id & 1))
            continue;
        if (best < 0 || d->gpuds[g].holding < d->gpuds[best].holding)
            best = (int)g;
    }
    if (best >= 0)
        d->next_gpud = ((unsigned)best + 1) % d->ngpuds;
    return best;
}

void dispatch_death(struct dispatcher *d, const struct dsp_event *ev,
                    int (*slot_live)(void *ctx, const struct dsp_job *j, uint32_t part),
                    void (*outcome)(void *ctx, struct dsp_job *j, uint32_t part,
                                    enum dsp_outcome o),
                    void *ctx)
{
    int gpud = ev->type == DSP_EV_GPUD_DIED;
    if (gpud)
        dispatch_gpud_down(d, ev->who);
    for (struct dsp_job *j = d->head; j; j = j->next) {
        for (uint32_t i = 0; i < j->nparts && !j->ended; i++) {
            const struct dsp_part *p = &j->parts[i];
            int held = gpud ? (p->state == DSP_TAKEN && p->gpud == ev->who) ||
                                  p->state == DSP_PUBLISHED
                            : p->state == DSP_SYNTH && p->synthd == ev->who;
            if (!held)
                continue;
            struct dsp_event e = *ev;
            e.slot_live = slot_live(ctx, j, i);
            enum dsp_outcome o = dispatch_apply(d, j, i, &e);
            if (o != DSP_STALE)
                outcome(ctx, j, i, o);
        }
    }
}

void dispatch_gpud_up(struct dispatcher *d, uint32_t g)
{
    if (g < d->ngpuds)
        d->gpuds[g] = (struct dsp_gpud){ .up = 1 };
}

void dispatch_gpud_down(struct dispatcher *d, uint32_t g)
{
    if (g < d->ngpuds) {
        d->gpuds[g].up = 0;
        d->gpuds[g].keys = 0;
    }
}

void dispatch_gpud_key(struct dispatcher *d, uint32_t g, uint32_t key_id, int loaded)
{
    if (g >= d->ngpuds || key_id >= DSP_MAX_KEYS)
        return;
    if (loaded)
        d->gpuds[g].keys |= 1ull << key_id;
    else
        d->gpuds[g].keys &= ~(1ull << key_id);
}

void dispatch_counts(const struct dispatcher *d, unsigned counts[DSP_FAILED + 1])
{
    for (int s = 0; s <= DSP_FAILED; s++)
        counts[s] = 0;
    for (const struct dsp_job *j = d->head; j; j = j->next)
        if (!j->ended)
            for (uint32_t i = 0; i < j->nparts; i++)
                counts[j->parts[i].state]++;
}

const char *dispatch_state_name(enum dsp_state s)
{
    static const char *const names[] = { "queued", "synthesizing", "published",
                                         "taken", "done", "failed" };
    return (unsigned)s <= DSP_FAILED ? names[s] : "invalid";
}
