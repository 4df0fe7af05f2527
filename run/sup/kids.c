/*
 * kids.c — the child table (kids.h): spawn, reap, attribute, back off.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "kids.h"
#include "sibling.h"
#include "log.h"

const char *kid_role_name(enum kid_role r)
{
    return r == ROLE_GPUD ? "gpud" : "synthd";
}

struct kid *kids_gpud(struct kid_table *t, unsigned i)
{
    return &t->kids[t->nsynthds + i];
}

struct kid *kids_by_fd(struct kid_table *t, int fd)
{
    for (unsigned i = 0; i < t->nkids; i++)
        if (t->kids[i].alive && (t->kids[i].p.ctl == fd || t->kids[i].p.pidfd == fd))
            return &t->kids[i];
    return NULL;
}

/* The kernel's count of OOM kills so far (/proc/vmstat oom_kill), or 0. */
static uint64_t read_oom_kills(void)
{
    char line[128];
    uint64_t v = 0;
    FILE *f = fopen("/proc/vmstat", "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "oom_kill ", 9) == 0)
            v = strtoull(line + 9, NULL, 10);
    fclose(f);
    return v;
}

/* How many gpuds share gpud i's device: those given the same --gpu, or
 * all of them when none is given (each takes the first visible device).
 * Each gpud's default device budget is its share of the free memory. */
static unsigned gpu_share(const struct kid_table *t, unsigned i)
{
    if (!t->gpus)
        return t->ngpuds;
    unsigned n = 0;
    for (unsigned j = 0; j < t->ngpuds; j++)
        n += t->gpus[j] && t->gpus[i] && strcmp(t->gpus[j], t->gpus[i]) == 0;
    return n ? n : 1;
}

static int spawn(struct kid_table *t, struct kid *k)
{
    struct sp_err e = { "" };
    struct spawn_opts o = {
        .exe = k->role == ROLE_GPUD ? t->exe_gpud : t->exe_synthd,
        .pool_ctl_fd = t->pool_ctl_fd,
        .pool_payload_fd = t->pool_payload_fd,
        .doorbell_fds = k->role == ROLE_GPUD ? &t->doorbell_fds[k->index] : t->doorbell_fds,
        .ndoorbells = k->role == ROLE_GPUD ? 1 : t->ngpuds,
        .gpud_index = k->role == ROLE_GPUD ? (int)k->index : -1,
        .incarnation = t->next_incarnation,
        .threads = k->role == ROLE_SYNTHD ? t->synth_threads : t->threads,
        .backend = k->role == ROLE_GPUD ? t->backend : NULL,
        .no_verify = k->role == ROLE_GPUD && t->no_verify,
        .trace_buffers = t->trace_buffers,
        .log_stamp = t->log_stamp,
        .gpu = k->role == ROLE_GPUD && t->gpus ? t->gpus[k->index] : NULL,
        .gpu_mem = k->role == ROLE_GPUD ? t->gpu_mem : 0,
        .workers = k->role == ROLE_GPUD ? t->gpud_workers : 0,
        .gpu_share = k->role == ROLE_GPUD ? gpu_share(t, k->index) : 0,
        .witness_mem = k->role == ROLE_SYNTHD ? t->witness_mem : 0,
        .witness_cpu = k->role == ROLE_SYNTHD ? t->witness_cpu : 0,
        .witness_time = k->role == ROLE_SYNTHD ? t->witness_time : 0,
    };
    t->next_incarnation = t->next_incarnation % 0xfffffe + 1; /* 24 bits, never 0 */
    int rc = proc_spawn(&k->p, kid_role_name(k->role), &o, &e);
    if (rc < 0) {
        sup_log(LOG_WARN, "event=spawn_failed role=%s|cannot start %s: %s", kid_role_name(k->role),
                kid_role_name(k->role), e.msg);
        return rc;
    }
    fcntl(k->p.ctl, F_SETFL, fcntl(k->p.ctl, F_GETFL) | O_NONBLOCK);
    k->alive = 1;
    k->state = KID_STARTING;
    k->keys_loaded = k->keys_sent = 0;
    k->holding = 0;
    k->kill_reason[0] = 0;
    k->stalled = 0;
    k->stopped_since_ns = 0;
    k->killed_ns = 0;
    k->deadline_ns = 0;
    k->rss_anon_kib = k->rss_shmem_kib = 0;
    k->dev_budget = k->dev_held = 0; /* until this incarnation reports them */
    if (k->role == ROLE_GPUD) {
        /* gpud maps every slot, which the OOM killer would count against it */
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)k->p.pid);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "-1000", 5) != 5)
            sup_log(LOG_NOTE, "note: cannot set gpud's oom_score_adj to -1000: %s",
                    strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    sup_log(LOG_NOTE, "event=started role=%s index=%u pid=%d incarnation=%u|started %s pid %d "
            "(incarnation %u)", kid_role_name(k->role), k->index, (int)k->p.pid, k->p.incarnation,
            kid_role_name(k->role), (int)k->p.pid, k->p.incarnation);
    return 0;
}

int kids_start(struct kid_table *t, struct sp_err *e)
{
    int rc;
    if ((rc = sibling_path(t->exe_synthd, sizeof(t->exe_synthd), "synthd")) < 0 ||
        (rc = sibling_path(t->exe_gpud, sizeof(t->exe_gpud), "gpud")) < 0)
        return sp_fail(e, rc, "cannot locate the synthd/gpud binaries: %s", strerror(-rc));
    t->nkids = t->nsynthds + t->ngpuds;
    t->next_incarnation = 1;
    t->oom_kills = read_oom_kills();
    for (unsigned i = 0; i < t->nkids; i++) {
        struct kid *k = &t->kids[i];
        memset(k, 0, sizeof(*k));
        k->p.pidfd = k->p.ctl = -1;
        k->role = i < t->nsynthds ? ROLE_SYNTHD : ROLE_GPUD;
        k->index = i < t->nsynthds ? i : i - t->nsynthds;
        if ((rc = spawn(t, k)) < 0)
            return sp_fail(e, rc, "cannot start %s: %s", kid_role_name(k->role),
                           strerror(-rc));
    }
    return 0;
}

void kids_hello(struct kid *k)
{
    k->state = KID_IDLE;
    k->consecutive = 0;
    k->loop_trips = 0; /* it started: the loop, if any, is over */
}

static enum dsp_cause classify(struct kid_table *t, struct kid *k)
{
    int st = k->p.status;
    if (k->kill_reason[0])
        return k->kill_cause;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 0 ? DSP_CAUSE_EXTERNAL : DSP_CAUSE_CRASH;
    if (!WIFSIGNALED(st))
        return DSP_CAUSE_EXTERNAL;
    switch (WTERMSIG(st)) {
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGABRT: case SIGSYS:
        return DSP_CAUSE_CRASH;
    case SIGKILL: {
        uint64_t oom = read_oom_kills();
        int moved = oom > t->oom_kills;
        t->oom_kills = oom;
        return moved ? DSP_CAUSE_OOM : DSP_CAUSE_EXTERNAL;
    }
    default:
        return DSP_CAUSE_EXTERNAL;
    }
}

void kids_reap(struct kid_table *t, struct kid *k, struct kid_death *out)
{
    char desc[128];
    static const char *const causes[] = { "not its fault", "a crash", "its RSS limit",
                                          "an OOM kill" };
    static const char *const cause_names[] = { "external", "crash", "rss", "oom" };
    proc_wait(&k->p, 1000);
    k->alive = 0;
    proc_describe(&k->p, desc, sizeof(desc));
    out->cause = classify(t, k);
    out->fatal = WIFEXITED(k->p.status) && WEXITSTATUS(k->p.status) == 2;
    snprintf(out->why, sizeof(out->why), "%s pid %d %s%s%s", kid_role_name(k->role),
             (int)k->p.pid, desc, k->kill_reason[0] ? ": " : "", k->kill_reason);
    snprintf(k->last_exit, sizeof(k->last_exit), "%.150s", out->why);
    sup_log(LOG_WARN, "event=died role=%s index=%u pid=%d cause=%s fatal=%d|%s (%s)",
            kid_role_name(k->role), k->index, (int)k->p.pid, cause_names[out->cause], out->fatal,
            out->why, out->fatal ? "fatal" : causes[out->cause]);
    proc_close(&k->p);
}

static int count_recent(const struct kid *k, uint64_t now)
{
    int n = 0;
    for (unsigned i = 0; i < CRASH_LIMIT; i++)
        if (k->crash_ns[i] && now - k->crash_ns[i] < CRASH_WINDOW_NS)
            n++;
    return n;
}

int kids_after_death(struct kid_table *t, struct kid *k, const struct kid_death *dd, int held,
                     int draining, uint64_t now)
{
    (void)t;
    k->holding = 0;
    if (draining) {
        k->state = KID_STOPPED;
        snprintf(k->stop_reason, sizeof(k->stop_reason), "daemon shutting down");
        return 1;
    }
    if (dd->fatal) {
        k->state = KID_STOPPED;
        snprintf(k->stop_reason, sizeof(k->stop_reason),
                 "%.200s (exit code 2: fatal, not respawned)", dd->why);
        sup_log(LOG_ERR, "event=role_stopped role=%s index=%u|%s not respawned: %s",
                kid_role_name(k->role), k->index, kid_role_name(k->role), k->stop_reason);
        return 1;
    }
    unsigned shift = k->consecutive < 6 ? k->consecutive : 6;
    uint64_t delay = 100ull * 1000000ull << shift; /* 0.1 s … 6.4 s */
    k->consecutive++;
    if (!k->loop_trips)
        k->stop_reason[0] = 0;
    /* the breaker counts crashes while holding nothing: a death with work
     * is that work's business (poison), an external kill nobody's */
    if (!held && dd->cause == DSP_CAUSE_CRASH) {
        k->crash_ns[k->ncrash++ % CRASH_LIMIT] = now;
        /* in a loop: CRASH_LIMIT crashes in the window, or still crashing
         * without a HELLO since the breaker last tripped */
        if (k->loop_trips > 0 || count_recent(k, now) >= CRASH_LIMIT) {
            uint64_t d = CRASH_BACKOFF_MIN_NS;
            for (unsigned i = 0; i < k->loop_trips && d < CRASH_BACKOFF_MAX_NS; i++)
                d *= 2;
            delay = d < CRASH_BACKOFF_MAX_NS ? d : CRASH_BACKOFF_MAX_NS;
            k->loop_trips++;
            memset(k->crash_ns, 0, sizeof(k->crash_ns));
            snprintf(k->stop_reason, sizeof(k->stop_reason),
                     "crash loop: %d crashes in %llu s without a job, next start in %.0f s; "
                     "last: %.150s", CRASH_LIMIT,
                     (unsigned long long)(CRASH_WINDOW_NS / 1000000000ull), delay / 1e9, dd->why);
            sup_log(LOG_WARN, "event=crash_loop role=%s index=%u backoff_s=%.0f|%s: %s",
                    kid_role_name(k->role), k->index, delay / 1e9, kid_role_name(k->role),
                    k->stop_reason);
        }
    }
    k->state = KID_BACKOFF;
    k->respawn_at_ns = now + delay;
    return 0;
}

/* RssAnon and RssShmem of pid from /proc/PID/status, in KiB, and its state
 * letter (R, S, D, T, t, Z…). */
static void read_status(pid_t pid, long *anon, long *shmem, char *state)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "RssAnon:", 8) == 0)
            *anon = strtol(line + 8, NULL, 10);
        else if (strncmp(line, "RssShmem:", 9) == 0)
            *shmem = strtol(line + 9, NULL, 10);
        else if (strncmp(line, "State:", 6) == 0)
            sscanf(line + 6, " %c", state);
    }
    fclose(f);
}

void kids_tick(struct kid_table *t, uint64_t now, int draining)
{
    int sample = now - t->last_rss_ns >= 200000000ull;
    if (sample) {
        t->last_rss_ns = now;
        /* keep the OOM baseline fresh, so a later external SIGKILL is not
         * mistaken for an OOM kill that hit some other process long ago */
        int any_dying = 0;
        for (unsigned i = 0; i < t->nkids; i++) {
            struct pollfd pf = { .fd = t->kids[i].p.pidfd, .events = POLLIN };
            any_dying |= t->kids[i].alive && poll(&pf, 1, 0) > 0;
        }
        if (!any_dying) /* an exited, unreaped child may be an OOM kill: keep the old base */
            t->oom_kills = read_oom_kills();
    }
    for (unsigned i = 0; sample && i < t->stuck.n; i++) {
        long anon = 0, shmem = 0;
        read_status(t->stuck.c[i].p.pid, &anon, &shmem, &t->stuck.c[i].state);
    }
    for (unsigned i = 0; i < t->nkids; i++) {
        struct kid *k = &t->kids[i];
        if (k->state == KID_BACKOFF && now >= k->respawn_at_ns && !draining) {
            if (spawn(t, k) == 0)
                k->restarts++;
            else
                k->respawn_at_ns = now + 1000000000ull;
        }
        if (!sample || !k->alive)
            continue;
        char state = '?';
        read_status(k->p.pid, &k->rss_anon_kib, &k->rss_shmem_kib, &state);
        if (state == 'T' || state == 't') {
            if (!k->stopped_since_ns)
                k->stopped_since_ns = now;
        } else {
            k->stopped_since_ns = 0;
        }
        if (k->kill_reason[0])
            continue;
        if (k->role == ROLE_SYNTHD && t->synth_rss_max &&
            (uint64_t)k->rss_anon_kib * 1024 > t->synth_rss_max) {
            snprintf(k->kill_reason, sizeof(k->kill_reason),
                     "RssAnon %.1f MiB exceeded --synth-rss-max %.1f MiB",
                     k->rss_anon_kib / 1024.0, t->synth_rss_max / 1048576.0);
            k->kill_cause = DSP_CAUSE_RSS;
            sup_log(LOG_WARN, "event=rss_kill role=synthd index=%u pid=%d rss_anon_kib=%ld|killing "
                    "synthd pid %d: %s", k->index, (int)k->p.pid, k->rss_anon_kib, (int)k->p.pid,
                    k->kill_reason);
            t->rss_kills++;
            proc_kill(&k->p, SIGKILL);
            k->killed_ns = now;
        } else if ((k->stopped_since_ns && now - k->stopped_since_ns >= STALL_STOPPED_NS) ||
                   (k->deadline_ns && now > k->deadline_ns)) {
            if (k->stopped_since_ns)
                snprintf(k->kill_reason, sizeof(k->kill_reason),
                         "stalled: stopped (state %c) for %.1f s", state,
                         (now - k->stopped_since_ns) / 1e9);
            else
                snprintf(k->kill_reason, sizeof(k->kill_reason),
                         "stalled: no progress report by its deadline (%.1f s late)",
                         (now - k->deadline_ns) / 1e9);
            k->kill_cause = DSP_CAUSE_EXTERNAL;
            k->stalled = 1;
            k->stalls++;
            t->stall_kills++;
            sup_log(LOG_WARN, "event=stall_kill role=%s index=%u pid=%d|killing %s pid %d: %s",
                    kid_role_name(k->role), k->index, (int)k->p.pid, kid_role_name(k->role),
                    (int)k->p.pid, k->kill_reason);
            proc_kill(&k->p, SIGKILL);
            k->killed_ns = now;
        }
    }
}

int kids_is_stuck(const struct kid *k, uint64_t now)
{
    return k->alive && k->killed_ns && now - k->killed_ns >= STUCK_GRACE_NS;
}

struct stuck_child *kids_leave_behind(struct kid_table *t, struct kid *k, const char *work,
                                      uint64_t now)
{
    if (t->stuck.n >= STUCK_MAX)
        return NULL;
    struct stuck_child *s = &t->stuck.c[t->stuck.n++];
    memset(s, 0, sizeof(*s));
    s->p = k->p;
    if (s->p.ctl >= 0)
        close(s->p.ctl);
    s->p.ctl = -1;
    s->gpud = k->role == ROLE_GPUD;
    s->index = k->index;
    s->killed_ns = k->killed_ns;
    s->left_ns = now;
    long anon = 0, shmem = 0;
    read_status(s->p.pid, &anon, &shmem, &s->state);
    snprintf(s->reason, sizeof(s->reason), "%s", k->kill_reason);
    snprintf(s->work, sizeof(s->work), "%s", work);
    t->stuck.total++;
    snprintf(k->last_exit, sizeof(k->last_exit),
             "%s pid %d still alive (state %c) %.0f s after SIGKILL: left behind stuck",
             kid_role_name(k->role), (int)k->p.pid, s->state ? s->state : '?',
             (now - k->killed_ns) / 1e9);
    sup_log(LOG_WARN, "event=left_behind role=%s index=%u pid=%d state=%c|%s; %s%s%sa new %s "
            "takes its place", kid_role_name(k->role), k->index, (int)k->p.pid,
            s->state ? s->state : '?', k->last_exit,
            work[0] ? "its " : "", work, work[0] ? " is written off; " : "",
            kid_role_name(k->role));
    k->p.pid = 0;
    k->p.pidfd = k->p.ctl = -1;
    k->alive = 0;
    k->holding = 0;
    k->stalled = 0;
    k->killed_ns = 0;
    k->deadline_ns = 0;
    k->stopped_since_ns = 0;
    k->state = KID_BACKOFF;
    k->respawn_at_ns = now;
    return s;
}

static int any_usable(const struct kid_table *t, enum kid_role role, const char **why)
{
    *why = NULL;
    for (unsigned i = 0; i < t->nkids; i++) {
        if (t->kids[i].role != role)
            continue;
        if (t->kids[i].state != KID_STOPPED)
            return 1;
        *why = t->kids[i].stop_reason;
    }
    return 0;
}

int kids_any_synthd_usable(const struct kid_table *t, const char **why)
{
    return any_usable(t, ROLE_SYNTHD, why);
}

int kids_any_gpud_usable(const struct kid_table *t, const char **why)
{
    return any_usable(t, ROLE_GPUD, why);
}

void kids_shutdown(struct kid_table *t)
{
    static struct ctl_msg m;
    ctl_init(&m, CTL_SHUTDOWN);
    for (unsigned i = 0; i < t->nkids; i++)
        if (t->kids[i].alive)
            ctl_send(t->kids[i].p.ctl, &m, NULL, 0);
    for (unsigned i = 0; i < t->nkids; i++)
        if (t->kids[i].alive) {
            struct kid *k = &t->kids[i];
            proc_wait(&k->p, 5000);
            if (!k->p.exited)
                sup_log(LOG_WARN, "event=not_waited role=%s pid=%d|%s pid %d did not exit after "
                        "SIGKILL (stuck in the kernel): not waited for; it exits when its "
                        "read returns", kid_role_name(k->role), (int)k->p.pid,
                        kid_role_name(k->role), (int)k->p.pid);
            k->alive = 0;
            proc_close(&k->p);
        }
    stuck_forget_all(&t->stuck);
}
