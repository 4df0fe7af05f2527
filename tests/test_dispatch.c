/*
 * test_dispatch.c — the partition dispatcher (run/sup/dispatch.c) driven by
 * events alone, no processes: each test feeds a sequence of events and
 * checks the partition table, the outcomes and the gpud table against the
 * rules stated in run/sup/dispatch.h.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "dispatch.h"

#define MS 1000000ull

static struct dispatcher D;
static struct dsp_part P[3][8];
static struct dsp_job J[3];

/* job i with n partitions of key `key`, added in order */
static struct dsp_job *job(int i, uint32_t n, uint32_t key)
{
    memset(P[i], 0, sizeof(P[i]));
    J[i] = (struct dsp_job){ .num = (uint64_t)i + 1, .key_id = key, .nparts = n, .parts = P[i] };
    dispatch_add(&D, &J[i]);
    return &J[i];
}

static enum dsp_outcome ev(struct dsp_job *j, uint32_t part, enum dsp_event_type t, uint32_t who)
{
    struct dsp_event e = { .type = t, .who = who, .now_ns = 1000 * MS };
    return dispatch_apply(&D, j, part, &e);
}

static void setup(void)
{
    dispatch_init(&D, 2, 3);
    dispatch_gpud_up(&D, 0);
    dispatch_gpud_key(&D, 0, 5, 1);
}

TestSuite(dispatch, .init = setup, .timeout = 120);

Test(dispatch, one_partition_through_every_state)
{
    struct dsp_job *j = job(0, 1, 5);
    cr_assert_eq(P[0][0].state, DSP_QUEUED);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_START, 7), DSP_MOVED);
    cr_assert_eq(P[0][0].state, DSP_SYNTH);
    cr_assert_eq(P[0][0].synthd, 7u);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_DONE, 7), DSP_MOVED);
    cr_assert_eq(P[0][0].state, DSP_PUBLISHED);
    cr_assert_eq(ev(j, 0, DSP_EV_TAKEN, 0), DSP_MOVED);
    cr_assert_eq(P[0][0].state, DSP_TAKEN);
    cr_assert_eq(D.gpuds[0].holding, 1u);
    cr_assert_eq(ev(j, 0, DSP_EV_PROVED, 0), DSP_JOB_DONE);
    cr_assert_eq(P[0][0].state, DSP_DONE);
    cr_assert_eq(D.gpuds[0].holding, 0u);
    cr_assert_eq(ev(j, 0, DSP_EV_PROVED, 1), DSP_DUPLICATE, "a second result is dropped");
}

Test(dispatch, job_done_only_with_its_last_partition)
{
    struct dsp_job *j = job(0, 3, 5);
    cr_assert_eq(ev(j, 2, DSP_EV_PROVED, 0), DSP_PART_DONE);
    cr_assert_eq(ev(j, 0, DSP_EV_PROVED, 0), DSP_PART_DONE);
    cr_assert_eq(ev(j, 0, DSP_EV_PROVED, 0), DSP_DUPLICATE);
    cr_assert_eq(j->ndone, 2u);
    cr_assert_eq(ev(j, 1, DSP_EV_PROVED, 1), DSP_JOB_DONE);
    cr_assert_eq(ev(j, 3, DSP_EV_PROVED, 1), DSP_STALE, "out of range");
}

Test(dispatch, taken_may_overtake_synth_done)
{
    struct dsp_job *j = job(0, 1, 5);
    ev(j, 0, DSP_EV_SYNTH_START, 7);
    cr_assert_eq(ev(j, 0, DSP_EV_TAKEN, 1), DSP_MOVED);
    cr_assert_eq(P[0][0].state, DSP_TAKEN);
    cr_assert_eq(P[0][0].gpud, 1u);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_DONE, 7), DSP_STALE);
    cr_assert_eq(P[0][0].state, DSP_TAKEN);
    /* the synthd dying now is about nothing it still holds */
    struct dsp_event e = { .type = DSP_EV_SYNTHD_DIED, .who = 7, .cause = DSP_CAUSE_CRASH };
    cr_assert_eq(dispatch_apply(&D, j, 0, &e), DSP_STALE);
    cr_assert_eq(P[0][0].attempts, 0u);
}

Test(dispatch, late_report_of_an_earlier_holder_is_stale)
{
    struct dsp_job *j = job(0, 1, 5);
    ev(j, 0, DSP_EV_SYNTH_START, 7);
    struct dsp_event e = { .type = DSP_EV_SYNTHD_DIED, .who = 7, .cause = DSP_CAUSE_EXTERNAL,
                           .now_ns = 1000 * MS };
    cr_assert_eq(dispatch_apply(&D, j, 0, &e), DSP_REQUEUED);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_START, 8), DSP_MOVED);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_DONE, 7), DSP_STALE, "incarnation 7 no longer holds it");
    cr_assert_eq(P[0][0].state, DSP_SYNTH);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_DONE, 8), DSP_MOVED);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_START, 9), DSP_STALE, "only a queued partition is handed out");
}

Test(dispatch, external_kills_retry_without_limit_with_backoff)
{
    struct dsp_job *j = job(0, 1, 5);
    uint64_t now = 1000 * MS, want = DSP_BACKOFF_MIN_NS;
    for (uint32_t r = 1; r <= 40; r++) {
        struct dsp_job *pj;
        uint32_t pp;
        cr_assert_eq(dispatch_next(&D, now, &pj, &pp), 1, "retry %u offered", r);
        cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_START, r), DSP_MOVED);
        struct dsp_event e = { .type = DSP_EV_SYNTHD_DIED, .who = r,
                               .cause = DSP_CAUSE_EXTERNAL, .now_ns = now };
        cr_assert_eq(dispatch_apply(&D, j, 0, &e), DSP_REQUEUED, "kill %u", r);
        cr_assert_eq(P[0][0].attempts, 0u, "an external kill never counts");
        cr_assert_eq(P[0][0].retries, r);
        /* the backoff doubles from the minimum and stops at the maximum */
        cr_assert_eq(P[0][0].not_before_ns - now, want, "kill %u: backoff %llu ns", r,
                     (unsigned long long)(P[0][0].not_before_ns - now));
        cr_assert_eq(dispatch_next(&D, now + want - 1, &pj, &pp), 0, "not before the backoff");
        now += want;
        want = want * 2 > DSP_BACKOFF_MAX_NS ? DSP_BACKOFF_MAX_NS : want * 2;
    }
    cr_assert_eq(P[0][0].state, DSP_QUEUED);
}

Test(dispatch, counted_deaths_poison_after_max_attempts)
{
    struct dsp_job *j = job(0, 2, 5);
    enum dsp_cause causes[3] = { DSP_CAUSE_CRASH, DSP_CAUSE_RSS, DSP_CAUSE_OOM };
    for (uint32_t k = 1; k <= 3; k++) {
        cr_assert_eq(ev(j, 1, DSP_EV_SYNTH_START, k), DSP_MOVED);
        /* an external kill in between does not count */
        struct dsp_event x = { .type = DSP_EV_SYNTHD_DIED, .who = k, .cause = DSP_CAUSE_EXTERNAL };
        if (k == 2) {
            cr_assert_eq(dispatch_apply(&D, j, 1, &x), DSP_REQUEUED);
            cr_assert_eq(ev(j, 1, DSP_EV_SYNTH_START, 20), DSP_MOVED);
            x.who = 20;
        } else {
            x.who = k;
        }
        struct dsp_event e = { .type = DSP_EV_SYNTHD_DIED, .who = x.who, .cause = causes[k - 1] };
        enum dsp_outcome o = dispatch_apply(&D, j, 1, &e);
        cr_assert_eq(P[0][1].attempts, k);
        if (k < 3) {
            cr_assert_eq(o, DSP_REQUEUED);
            cr_assert_eq(P[0][1].not_before_ns, 0u, "a counted death is retried at once");
        } else {
            cr_assert_eq(o, DSP_POISONED);
            cr_assert_eq(P[0][1].state, DSP_FAILED);
        }
    }
    cr_assert_eq(ev(j, 1, DSP_EV_PROVED, 0), DSP_DUPLICATE);
    cr_assert_eq(P[0][0].state, DSP_QUEUED, "the other partition is untouched");
}

Test(dispatch, synthd_that_published_then_died_leaves_it_published)
{
    struct dsp_job *j = job(0, 1, 5);
    ev(j, 0, DSP_EV_SYNTH_START, 7);
    struct dsp_event e = { .type = DSP_EV_SYNTHD_DIED, .who = 7, .cause = DSP_CAUSE_CRASH,
                           .slot_live = 1 };
    cr_assert_eq(dispatch_apply(&D, j, 0, &e), DSP_MOVED);
    cr_assert_eq(P[0][0].state, DSP_PUBLISHED);
    cr_assert_eq(P[0][0].attempts, 0u, "its work survived: nothing to count");
}

struct death_log {
    int n;
    uint32_t part[16];
    enum dsp_outcome o[16];
    uint8_t live[3][8];
};

static int live_of(void *ctx, const struct dsp_job *j, uint32_t part)
{
    struct death_log *l = ctx;
    return l->live[j - J][part];
}

static void record(void *ctx, struct dsp_job *j, uint32_t part, enum dsp_outcome o)
{
    struct death_log *l = ctx;
    l->part[l->n] = (uint32_t)(j - J) * 8 + part;
    l->o[l->n++] = o;
}

Test(dispatch, gpud_death_requeues_only_its_own_work)
{
    dispatch_gpud_up(&D, 1);
    dispatch_gpud_key(&D, 1, 5, 1);
    struct dsp_job *j = job(0, 6, 5);
    for (uint32_t i = 0; i < 6; i++) {
        ev(j, i, DSP_EV_SYNTH_START, 10 + i);
        ev(j, i, DSP_EV_SYNTH_DONE, 10 + i);
    }
    ev(j, 0, DSP_EV_TAKEN, 0); /* gpud 0, still PROVING: slot live */
    ev(j, 1, DSP_EV_TAKEN, 0); /* gpud 0, released early: not live */
    ev(j, 2, DSP_EV_TAKEN, 1); /* gpud 1: not gpud 0's */
    /* 3: PUBLISHED, READY slot (live): waits for any gpud */
    /* 4: PUBLISHED, slot gone, no TAKEN seen: gpud 0 took it and released it */
    ev(j, 5, DSP_EV_PROVED, 1);
    cr_assert_eq(D.gpuds[0].holding, 2u);
    cr_assert_eq(D.gpuds[1].holding, 1u);
    struct death_log l = { 0 };
    l.live[0][0] = l.live[0][3] = 1;
    struct dsp_event e = { .type = DSP_EV_GPUD_DIED, .who = 0, .cause = DSP_CAUSE_EXTERNAL,
                           .now_ns = 5 };
    dispatch_death(&D, &e, live_of, record, &l);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.part[0], 0u);
    cr_assert_eq(l.o[0], DSP_REPROVE);
    cr_assert_eq(l.part[1], 1u);
    cr_assert_eq(l.o[1], DSP_REQUEUED);
    cr_assert_eq(l.part[2], 4u);
    cr_assert_eq(l.o[2], DSP_REQUEUED);
    cr_assert_eq(P[0][0].state, DSP_PUBLISHED);
    cr_assert_eq(P[0][1].state, DSP_QUEUED);
    cr_assert_eq(P[0][2].state, DSP_TAKEN);
    cr_assert_eq(P[0][2].gpud, 1u);
    cr_assert_eq(P[0][3].state, DSP_PUBLISHED);
    cr_assert_eq(P[0][4].state, DSP_QUEUED);
    cr_assert_eq(P[0][5].state, DSP_DONE);
    cr_assert_eq(D.gpuds[0].up, 0);
    cr_assert_eq(D.gpuds[0].holding, 0u);
    cr_assert_eq(D.gpuds[1].holding, 1u);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(P[0][i].attempts, 0u, "an external kill counts against nothing");
}

Test(dispatch, gpud_crash_while_proving_counts_toward_poison)
{
    struct dsp_job *j = job(0, 1, 5);
    struct death_log l = { 0 };
    l.live[0][0] = 1;
    for (uint32_t k = 1; k <= 3; k++) {
        if (k == 1) {
            ev(j, 0, DSP_EV_SYNTH_START, 7);
            ev(j, 0, DSP_EV_SYNTH_DONE, 7);
        }
        dispatch_gpud_up(&D, 0);
        cr_assert_eq(ev(j, 0, DSP_EV_TAKEN, 0), DSP_MOVED);
        struct dsp_event e = { .type = DSP_EV_GPUD_DIED, .who = 0, .cause = DSP_CAUSE_CRASH };
        l.n = 0;
        dispatch_death(&D, &e, live_of, record, &l);
        cr_assert_eq(l.n, 1);
        cr_assert_eq(l.o[0], k < 3 ? DSP_REPROVE : DSP_POISONED, "death %u", k);
    }
    cr_assert_eq(P[0][0].state, DSP_FAILED);
}

Test(dispatch, next_is_oldest_with_a_loaded_key)
{
    struct dsp_job *a = job(0, 2, 6), *b = job(1, 2, 5), *c = job(2, 1, 5);
    struct dsp_job *j;
    uint32_t p;
    cr_assert_eq(dispatch_next(&D, 0, &j, &p), 1);
    cr_assert_eq(j, b, "job 0's key 6 is on no gpud");
    cr_assert_eq(p, 0u);
    ev(b, 0, DSP_EV_SYNTH_START, 1);
    dispatch_next(&D, 0, &j, &p);
    cr_assert(j == b && p == 1);
    ev(b, 1, DSP_EV_SYNTH_START, 2);
    dispatch_next(&D, 0, &j, &p);
    cr_assert_eq(j, c);
    dispatch_gpud_key(&D, 0, 6, 1);
    dispatch_next(&D, 0, &j, &p);
    cr_assert_eq(j, a, "once its key is loaded the oldest job comes first");
    dispatch_end(&D, a);
    dispatch_next(&D, 0, &j, &p);
    cr_assert_eq(j, c, "an ended job is not dispatched");
    dispatch_gpud_down(&D, 0);
    cr_assert_eq(dispatch_next(&D, 0, &j, &p), 0, "no gpud up: nothing to dispatch");
    dispatch_remove(&D, b);
    dispatch_remove(&D, b);
    cr_assert(D.head == a && a->next == c && c->prev == a && D.tail == c);
}

Test(dispatch, ended_job_ignores_events_and_frees_its_gpud_count)
{
    struct dsp_job *j = job(0, 2, 5);
    ev(j, 0, DSP_EV_SYNTH_START, 3);
    ev(j, 0, DSP_EV_TAKEN, 0);
    cr_assert_eq(D.gpuds[0].holding, 1u);
    cr_assert_eq(ev(j, 1, DSP_EV_FAILED, 0), DSP_FAILED_OUT);
    dispatch_end(&D, j);
    cr_assert_eq(D.gpuds[0].holding, 0u);
    cr_assert_eq(ev(j, 0, DSP_EV_PROVED, 0), DSP_DUPLICATE);
    cr_assert_eq(ev(j, 0, DSP_EV_SYNTH_DONE, 3), DSP_STALE);
    unsigned n[DSP_FAILED + 1];
    dispatch_counts(&D, n);
    cr_assert_eq(n[DSP_TAKEN], 0u, "ended jobs are not counted");
}

Test(dispatch, pick_gpud_prefers_the_least_loaded_with_the_key)
{
    dispatch_gpud_up(&D, 1);
    cr_assert_eq(dispatch_pick_gpud(&D, 5), 0, "only gpud 0 has key 5");
    dispatch_gpud_key(&D, 1, 5, 1);
    struct dsp_job *j = job(0, 3, 5);
    ev(j, 0, DSP_EV_SYNTH_START, 1);
    ev(j, 0, DSP_EV_TAKEN, 0);
    cr_assert_eq(dispatch_pick_gpud(&D, 5), 1, "gpud 0 holds one, gpud 1 none");
    ev(j, 1, DSP_EV_SYNTH_START, 2);
    ev(j, 1, DSP_EV_TAKEN, 1);
    int a = dispatch_pick_gpud(&D, 5), b = dispatch_pick_gpud(&D, 5);
    cr_assert(a != b, "ties rotate (%d, %d)", a, b);
    cr_assert_eq(dispatch_pick_gpud(&D, 6), -1, "nobody has key 6");
    dispatch_gpud_down(&D, 0);
    dispatch_gpud_down(&D, 1);
    cr_assert_eq(dispatch_pick_gpud(&D, 5), -1, "nobody is up");
}

Test(dispatch, job_without_a_key_yet_keeps_its_place)
{
    struct dsp_job *a = job(0, 1, DSP_MAX_KEYS), *b = job(1, 1, 5);
    struct dsp_job *j;
    uint32_t p;
    cr_assert_eq(dispatch_next(&D, 0, &j, &p), 1);
    cr_assert_eq(j, b, "a job whose key is still being read is skipped");
    a->key_id = 5;
    dispatch_next(&D, 0, &j, &p);
    cr_assert_eq(j, a, "once it has its key it comes first again");
}
