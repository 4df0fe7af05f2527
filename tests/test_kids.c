/* The supervisor's child table (kids.h), reached only through the daemon in
 * the fault suite: why a child died (real forked children that crash, exit
 * or are killed), the respawn backoff (0.1 s doubling to 6.4 s), the
 * crash-loop breaker (CRASH_LIMIT idle crashes in CRASH_WINDOW_NS: 4 s
 * doubling to 64 s, reset by HELLO; crashes with work and external kills
 * not counted), exit code 2 and draining stopping a role. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kids.h"
#include "log.h"

static void quiet(void)
{
    log_setup("test", 0, LOG_WARN, 1);
}

TestSuite(kids, .init = quiet, .timeout = 30);

#define MS 1000000ull
#define S 1000000000ull

static struct kid_table *table(unsigned nsynthds, unsigned ngpuds)
{
    struct kid_table *t = calloc(1, sizeof(*t));
    cr_assert_not_null(t);
    t->nsynthds = nsynthds;
    t->ngpuds = ngpuds;
    t->nkids = nsynthds + ngpuds;
    for (unsigned i = 0; i < t->nkids; i++) {
        t->kids[i].role = i < nsynthds ? ROLE_SYNTHD : ROLE_GPUD;
        t->kids[i].index = i < nsynthds ? i : i - nsynthds;
        t->kids[i].state = KID_IDLE;
        t->kids[i].p.pidfd = t->kids[i].p.ctl = -1;
    }
    return t;
}

static const struct kid_death crash = { .cause = DSP_CAUSE_CRASH, .why = "synthd pid 1 crashed" };
static const struct kid_death external = { .cause = DSP_CAUSE_EXTERNAL, .why = "killed" };

Test(kids, respawn_backoff_doubles_to_6_4_s_and_hello_resets)
{
    struct kid_table *t = table(1, 0);
    struct kid *k = &t->kids[0];
    uint64_t now = 100 * S;
    const uint64_t want[] = { 100, 200, 400, 800, 1600, 3200, 6400, 6400, 6400 };
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_eq(kids_after_death(t, k, &external, 0, 0, now), 0);
        cr_assert_eq(k->state, KID_BACKOFF);
        cr_assert_eq(k->respawn_at_ns - now, want[i] * MS, "death %u: %llu ms", i,
                     (unsigned long long)((k->respawn_at_ns - now) / MS));
        now += 100 * S; /* external kills never trip the breaker */
    }
    kids_hello(k);
    cr_assert_eq(k->state, KID_IDLE);
    cr_assert_eq(kids_after_death(t, k, &external, 0, 0, now), 0);
    cr_assert_eq(k->respawn_at_ns - now, 100 * MS, "HELLO resets the backoff");
    free(t);
}

Test(kids, crash_loop_breaker)
{
    struct kid_table *t = table(2, 1);
    struct kid *k = &t->kids[0];
    uint64_t now = 1000 * S;
    /* CRASH_LIMIT - 1 idle crashes: ordinary backoff */
    for (unsigned i = 0; i + 1 < CRASH_LIMIT; i++) {
        kids_after_death(t, k, &crash, 0, 0, now);
        cr_assert_lt(k->respawn_at_ns - now, CRASH_BACKOFF_MIN_NS);
        cr_assert_eq(k->stop_reason[0], 0);
        kids_hello(k); /* even if it said HELLO in between */
        now += S;
    }
    /* the CRASH_LIMIT-th within the window: backed off long, saying why */
    kids_after_death(t, k, &crash, 0, 0, now);
    cr_assert_eq(k->state, KID_BACKOFF, "the breaker never stops the role");
    cr_assert_eq(k->respawn_at_ns - now, CRASH_BACKOFF_MIN_NS);
    cr_assert_not_null(strstr(k->stop_reason, "crash loop"), "%s", k->stop_reason);
    /* still crashing without a HELLO: doubling, capped */
    uint64_t d = CRASH_BACKOFF_MIN_NS;
    for (int i = 0; i < 6; i++) {
        now += 100 * S;
        d = d * 2 < CRASH_BACKOFF_MAX_NS ? d * 2 : CRASH_BACKOFF_MAX_NS;
        kids_after_death(t, k, &crash, 0, 0, now);
        cr_assert_eq(k->respawn_at_ns - now, d, "trip %d: %llu s", i + 2,
                     (unsigned long long)((k->respawn_at_ns - now) / S));
    }
    cr_assert_eq(d, CRASH_BACKOFF_MAX_NS);
    /* a HELLO ends the loop: the next crash is an ordinary one */
    kids_hello(k);
    now += 100 * S;
    kids_after_death(t, k, &crash, 0, 0, now);
    cr_assert_eq(k->respawn_at_ns - now, 100 * MS);
    cr_assert_eq(k->stop_reason[0], 0, "the crash-loop reason is cleared: %s", k->stop_reason);
    const char *why;
    cr_assert_eq(kids_any_synthd_usable(t, &why), 1);
    free(t);
}

Test(kids, breaker_counts_only_idle_crashes_in_the_window)
{
    struct kid_table *t = table(1, 0);
    struct kid *k = &t->kids[0];
    uint64_t now = 1000 * S;
    /* crashes while holding work (the work's business) and external kills:
     * many, close together, never a crash loop */
    for (int i = 0; i < 3 * CRASH_LIMIT; i++) {
        kids_after_death(t, k, i % 2 ? &crash : &external, i % 2, 0, now);
        kids_hello(k);
        cr_assert_lt(k->respawn_at_ns - now, CRASH_BACKOFF_MIN_NS, "death %d", i);
        now += MS;
    }
    /* idle crashes spread wider than the window: never CRASH_LIMIT in it */
    uint64_t gap = CRASH_WINDOW_NS / (CRASH_LIMIT - 1) + 1;
    for (int i = 0; i < 3 * CRASH_LIMIT; i++) {
        kids_after_death(t, k, &crash, 0, 0, now);
        kids_hello(k);
        cr_assert_lt(k->respawn_at_ns - now, CRASH_BACKOFF_MIN_NS, "spread crash %d", i);
        cr_assert_eq(k->stop_reason[0], 0);
        now += gap;
    }
    free(t);
}

Test(kids, fatal_exit_and_draining_stop_the_role)
{
    struct kid_table *t = table(2, 1);
    const char *why = NULL;
    struct kid_death fatal = { .cause = DSP_CAUSE_CRASH, .fatal = 1,
                               .why = "synthd pid 9 exited with code 2" };
    t->kids[0].holding = 1;
    cr_assert_eq(kids_after_death(t, &t->kids[0], &fatal, 1, 0, S), 1);
    cr_assert_eq(t->kids[0].state, KID_STOPPED);
    cr_assert_eq(t->kids[0].holding, 0);
    cr_assert_not_null(strstr(t->kids[0].stop_reason, "exited with code 2"));
    cr_assert_eq(kids_any_synthd_usable(t, &why), 1, "synthd 1 still runs");
    cr_assert_eq(kids_after_death(t, &t->kids[1], &fatal, 0, 0, S), 1);
    cr_assert_eq(kids_any_synthd_usable(t, &why), 0);
    cr_assert_not_null(why);
    cr_assert_not_null(strstr(why, "fatal"), "%s", why);
    cr_assert_eq(kids_any_gpud_usable(t, &why), 1);
    struct kid *g = kids_gpud(t, 0);
    cr_assert_eq(g, &t->kids[2]);
    cr_assert_eq(kids_after_death(t, g, &external, 0, 1, S), 1, "draining: no respawn");
    cr_assert_eq(g->state, KID_STOPPED);
    cr_assert_eq(kids_any_gpud_usable(t, &why), 0);
    cr_assert_str_eq(why, "daemon shutting down");
    cr_assert_str_eq(kid_role_name(ROLE_GPUD), "gpud");
    cr_assert_str_eq(kid_role_name(ROLE_SYNTHD), "synthd");
    free(t);
}

/* A real child that ends as `how` says, reaped by kids_reap. */
static void reap_child(struct kid_table *t, struct kid *k, int how, struct kid_death *dd)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (how > 0) {
            signal(how, SIG_DFL);
            raise(how);
        }
        _exit(-how);
    }
    k->p.pid = pid;
    k->p.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    cr_assert_geq(k->p.pidfd, 0);
    k->p.ctl = -1;
    k->p.exited = 0;
    k->alive = 1;
    cr_assert_eq(kids_by_fd(t, k->p.pidfd), k);
    memset(dd, 0, sizeof(*dd));
    kids_reap(t, k, dd);
    cr_assert_eq(k->alive, 0);
}

Test(kids, reap_says_why)
{
    struct kid_table *t = table(1, 1);
    struct kid *k = &t->kids[0];
    struct kid_death dd;

    reap_child(t, k, SIGSEGV, &dd);
    cr_assert_eq(dd.cause, DSP_CAUSE_CRASH);
    cr_assert_eq(dd.fatal, 0);
    cr_assert_not_null(strstr(dd.why, "killed by signal 11"), "%s", dd.why);
    cr_assert_str_eq(k->last_exit, dd.why);

    reap_child(t, k, SIGABRT, &dd);
    cr_assert_eq(dd.cause, DSP_CAUSE_CRASH);

    reap_child(t, k, -2, &dd); /* exit code 2: fatal */
    cr_assert_eq(dd.fatal, 1);
    cr_assert_not_null(strstr(dd.why, "exited with code 2"), "%s", dd.why);

    reap_child(t, k, -1, &dd); /* an error exit counts as a crash */
    cr_assert_eq(dd.cause, DSP_CAUSE_CRASH);
    cr_assert_eq(dd.fatal, 0);

    reap_child(t, k, 0, &dd); /* exit 0 unasked: not its fault */
    cr_assert_eq(dd.cause, DSP_CAUSE_EXTERNAL);

    reap_child(t, k, SIGTERM, &dd);
    cr_assert_eq(dd.cause, DSP_CAUSE_EXTERNAL);

    /* the supervisor's own kill (RSS limit): its reason and cause win */
    snprintf(k->kill_reason, sizeof(k->kill_reason), "RssAnon 600 MiB over the limit");
    k->kill_cause = DSP_CAUSE_RSS;
    reap_child(t, k, SIGKILL, &dd);
    cr_assert_eq(dd.cause, DSP_CAUSE_RSS);
    cr_assert_not_null(strstr(dd.why, ": RssAnon 600 MiB over the limit"), "%s", dd.why);
    free(t);
}
