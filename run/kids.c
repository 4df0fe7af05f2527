/*
 * kids.c — the supervisor's child table: synthd × N and one gpud.
 *
 * nginx's master cycle is the model: a child's exit is noticed (pidfd), its
 * control socket drained, the child reaped, and only then its slots
 * reclaimed (a SIGKILLed process's threads run until the reap). Exit code 2
 * means "fatal, do not respawn"; a child that crashes CRASH_LIMIT times in
 * CRASH_WINDOW_NS while holding no job is a crash loop and is not respawned
 * either. Deaths while holding a partition count against that partition
 * (poison partitions fail their job after --max-attempts), not against the
 * crash-loop breaker. Respawns back off exponentially.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "slot.h"

static const char *role_name(enum kid_role r)
{
    return r == ROLE_GPUD ? "gpud" : "synthd";
}

struct kid *kids_gpud(struct daemon *d)
{
    return &d->kids[d->o.synthds];
}

static int spawn(struct daemon *d, struct kid *k)
{
    struct sp_err e = { "" };
    struct spawn_opts o = {
        .exe = k->role == ROLE_GPUD ? d->exe_gpud : d->exe_synthd,
        .pool_ctl_fd = d->pool.ctl_fd,
        .pool_payload_fd = d->pool.payload_fd,
        .doorbell_fd = d->doorbell,
        .incarnation = d->next_incarnation,
        .threads = d->o.threads,
        .backend = k->role == ROLE_GPUD ? d->o.backend : NULL,
    };
    d->next_incarnation = d->next_incarnation % 0xfffffe + 1; /* 24 bits, never 0 */
    int rc = proc_spawn(&k->p, role_name(k->role), &o, &e);
    if (rc < 0) {
        daemon_log("cannot start %s: %s", role_name(k->role), e.msg);
        return rc;
    }
    fcntl(k->p.ctl, F_SETFL, fcntl(k->p.ctl, F_GETFL) | O_NONBLOCK);
    k->alive = 1;
    k->state = KID_STARTING;
    k->keys_loaded = k->keys_sent = 0;
    k->job = NULL;
    k->kill_reason[0] = 0;
    k->rss_anon_kib = k->rss_shmem_kib = k->pss_kib = 0;
    if (k->role == ROLE_GPUD) {
        /* gpud maps every slot, which the OOM killer would count against it */
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)k->p.pid);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "-1000", 5) != 5)
            daemon_log("note: cannot set gpud's oom_score_adj to -1000: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    daemon_log("started %s pid %d (incarnation %u)", role_name(k->role), (int)k->p.pid,
               k->p.incarnation);
    return 0;
}

int kids_start(struct daemon *d)
{
    int rc;
    if ((rc = proc_sibling_path(d->exe_synthd, sizeof(d->exe_synthd), "synthd")) < 0 ||
        (rc = proc_sibling_path(d->exe_gpud, sizeof(d->exe_gpud), "gpud")) < 0)
        return rc;
    d->nkids = d->o.synthds + 1;
    d->next_incarnation = 1;
    for (unsigned i = 0; i < d->nkids; i++) {
        struct kid *k = &d->kids[i];
        memset(k, 0, sizeof(*k));
        k->p.pidfd = k->p.ctl = -1;
        k->role = i == d->o.synthds ? ROLE_GPUD : ROLE_SYNTHD;
        if ((rc = spawn(d, k)) < 0)
            return rc;
    }
    return 0;
}

int kids_send_key(struct daemon *d, struct kid *k, uint32_t key_id)
{
    static struct ctl_msg m;
    if (!k->alive || (k->keys_sent & (1ull << key_id)))
        return 0;
    memset(&m, 0, sizeof(m));
    m.type = CTL_KEY_LOAD;
    m.key_id = key_id;
    ctl_text(&m, "%s", d->keys[key_id].name);
    int rc = ctl_send(k->p.ctl, &m, &d->keys[key_id].fd, 1);
    if (rc == 0)
        k->keys_sent |= 1ull << key_id;
    return rc;
}

int kids_any_synthd_usable(const struct daemon *d, const char **why)
{
    *why = NULL;
    for (unsigned i = 0; i < d->o.synthds; i++) {
        if (d->kids[i].state != KID_STOPPED)
            return 1;
        *why = d->kids[i].stop_reason;
    }
    return 0;
}

void kid_handle_msg(struct daemon *d, struct kid *k, struct ctl_msg *m, int *fds, int nfds)
{
    for (int i = 0; i < nfds; i++)
        close(fds[i]); /* children send no descriptors */
    switch (m->type) {
    case CTL_HELLO:
        k->state = KID_IDLE;
        k->consecutive = 0;
        if (k->role == ROLE_GPUD)
            for (uint32_t i = 0; i < MAX_KEYS; i++)
                if (d->keys[i].used && !d->keys[i].failed)
                    kids_send_key(d, k, i);
        break;
    case CTL_KEY_OK:
        if (m->key_id < MAX_KEYS)
            k->keys_loaded |= 1ull << m->key_id;
        break;
    case CTL_KEY_ERR:
        if (m->key_id < MAX_KEYS && d->keys[m->key_id].used) {
            d->keys[m->key_id].failed = 1;
            snprintf(d->keys[m->key_id].error, sizeof(d->keys[m->key_id].error), "%.590s", m->text);
            jobs_key_failed(d, m->key_id, m->text);
        }
        break;
    case CTL_SYNTH_DONE:
        jobs_on_synth_done(d, k, m);
        k->state = KID_IDLE;
        k->job = NULL;
        break;
    case CTL_SYNTH_ERR:
        if (k->job && k->job->state == JOB_RUNNING)
            jobs_fail(d, k->job, "%s", m->text);
        k->state = KID_IDLE;
        k->job = NULL;
        break;
    case CTL_PROVED:
        jobs_on_proved(d, m);
        break;
    case CTL_TAKEN:
        jobs_on_taken(d, k, m);
        break;
    case CTL_PROGRESS:
        break; /* per-stage progress matters to `prove`'s terminal, not to the daemon */
    case CTL_PROVE_ERR: {
        struct job *j = jobs_by_num(d, m->job_id);
        if (j && j->state == JOB_RUNNING)
            jobs_fail(d, j, "partition %u: %s", m->partition, m->text);
        break;
    }
    default:
        daemon_log("%s pid %d sent unexpected %s", role_name(k->role), (int)k->p.pid,
                   ctl_type_name(m->type));
    }
}

/* Is (job num, partition) in a READY or PROVING slot? Headers only. */
static int in_live_slot(struct daemon *d, uint64_t num, uint32_t part)
{
    for (uint32_t s = 0; s < d->pool.nslots; s++) {
        uint32_t st = slot_state_of(slot_word(&d->pool, s));
        struct slot_header h;
        if ((st == SLOT_READY || st == SLOT_PROVING) && slot_read_header(&d->pool, s, &h) == 0 &&
            h.job_id == num && h.partition == part)
            return 1;
    }
    return 0;
}

static int count_recent(struct kid *k, uint64_t now)
{
    int n = 0;
    for (unsigned i = 0; i < CRASH_LIMIT; i++)
        if (k->crash_ns[i] && now - k->crash_ns[i] < CRASH_WINDOW_NS)
            n++;
    return n;
}

static void after_synthd_death(struct daemon *d, struct kid *k, const char *why, int *job_caused)
{
    struct reclaim_report rep;
    slot_reclaim_owner(&d->pool, k->p.incarnation, &rep);
    d->c.synthd_deaths++;
    struct job *j = k->job;
    *job_caused = j != NULL;
    if (j && j->state == JOB_RUNNING && j->parts[k->part].state == PART_SYNTH &&
        j->parts[k->part].synth_inc == k->p.incarnation) {
        if (in_live_slot(d, j->num, k->part))
            j->parts[k->part].state = PART_PUBLISHED; /* it published, then died */
        else
            jobs_partition_died(d, j, k->part, why);
    }
    k->job = NULL;
}

static void after_gpud_death(struct daemon *d, const char *why, int *job_caused)
{
    struct reclaim_report rep;
    uint32_t dead = kids_gpud(d)->p.incarnation;
    slot_reclaim_owner(&d->pool, dead, &rep);
    d->c.gpud_deaths++;
    *job_caused = rep.n_readied > 0;
    /* PROVING slots went back to READY: prove them again from shared memory */
    for (uint32_t i = 0; i < rep.n_readied; i++) {
        struct reclaim_entry *r = &rep.readied[i];
        struct job *j = r->hdr_valid ? jobs_by_num(d, r->job_id) : NULL;
        if (!j || j->state != JOB_RUNNING || r->partition >= j->nparts ||
            j->parts[r->partition].state == PART_DONE) {
            slot_force_free(&d->pool, r->slot, r->gen);
            continue;
        }
        d->c.reproved_from_shm++;
        struct part *p = &j->parts[r->partition];
        if (++p->attempts >= d->o.max_attempts)
            jobs_fail(d, j, "partition %u (%s): gpud died %u times while proving it; last: %s",
                      r->partition, p->wname, p->attempts, why);
    }
    /* Partitions whose slot was released early lived only in gpud: redo them.
     * That is every published partition no longer in a slot, and also one
     * whose synthd has not yet reported SYNTH_DONE but whose slot the dead
     * gpud already took (its TAKEN message was read before this). */
    for (struct job *j = d->jobs; j; j = j->next) {
        if (j->state != JOB_RUNNING)
            continue;
        for (uint32_t i = 0; i < j->nparts && j->state == JOB_RUNNING; i++) {
            struct part *p = &j->parts[i];
            int lost = (p->state == PART_PUBLISHED ||
                        (p->state == PART_SYNTH && p->taken_by == dead)) &&
                       !in_live_slot(d, j->num, i);
            if (lost) {
                d->c.resynthesized++;
                jobs_partition_died(d, j, i, why);
            }
        }
    }
}

void kids_on_exit(struct daemon *d, struct kid *k)
{
    static struct ctl_msg m;
    int fds[CTL_MAX_FDS], nfds, rc;
    char desc[128], why[400];
    uint64_t now = now_ns();

    /* results it sent before dying count: read the socket to EOF first */
    while ((rc = ctl_recv(k->p.ctl, &m, fds, &nfds)) != 0 && rc != -EAGAIN) {
        if (rc == 1)
            kid_handle_msg(d, k, &m, fds, nfds);
        else if (rc != -EPROTO)
            break;
    }
    proc_wait(&k->p, 1000);
    k->alive = 0;
    proc_describe(&k->p, desc, sizeof(desc));
    snprintf(why, sizeof(why), "%s pid %d %s%s%s", role_name(k->role), (int)k->p.pid, desc,
             k->kill_reason[0] ? ": " : "", k->kill_reason);
    snprintf(k->last_exit, sizeof(k->last_exit), "%.150s", why);
    daemon_log("%s", why);

    int job_caused = 0;
    if (k->role == ROLE_SYNTHD)
        after_synthd_death(d, k, why, &job_caused);
    else
        after_gpud_death(d, why, &job_caused);
    proc_close(&k->p);

    int fatal = WIFEXITED(k->p.status) && WEXITSTATUS(k->p.status) == 2;
    if (!job_caused && !fatal) {
        k->crash_ns[k->ncrash++ % CRASH_LIMIT] = now;
    }
    if (d->draining) {
        k->state = KID_STOPPED;
        snprintf(k->stop_reason, sizeof(k->stop_reason), "daemon shutting down");
    } else if (fatal) {
        k->state = KID_STOPPED;
        snprintf(k->stop_reason, sizeof(k->stop_reason),
                 "%.200s (exit code 2: fatal, not respawned)", why);
    } else if (count_recent(k, now) >= CRASH_LIMIT) {
        k->state = KID_STOPPED;
        snprintf(k->stop_reason, sizeof(k->stop_reason),
                 "crash loop: %d crashes in %llu s without a job, not respawned; last: %.150s",
                 CRASH_LIMIT, (unsigned long long)(CRASH_WINDOW_NS / 1000000000ull), why);
    } else {
        unsigned shift = k->consecutive < 6 ? k->consecutive : 6;
        k->consecutive++;
        k->state = KID_BACKOFF;
        k->respawn_at_ns = now + (100ull * 1000000ull << shift); /* 0.1 s … 6.4 s */
    }
    if (k->state == KID_STOPPED && !d->draining) {
        daemon_log("%s not respawned: %s", role_name(k->role), k->stop_reason);
        const char *reason;
        if (k->role == ROLE_GPUD)
            jobs_fail_all(d, k->stop_reason);
        else if (!kids_any_synthd_usable(d, &reason))
            jobs_fail_all(d, reason);
    }
}

/* RssAnon and RssShmem of pid from /proc/PID/status, in KiB. */
static void read_rss(pid_t pid, long *anon, long *shmem)
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
    }
    fclose(f);
}

void kids_tick(struct daemon *d, uint64_t now)
{
    static uint64_t last_rss;
    int sample = now - last_rss >= 200000000ull;
    if (sample)
        last_rss = now;
    for (unsigned i = 0; i < d->nkids; i++) {
        struct kid *k = &d->kids[i];
        if (k->state == KID_BACKOFF && now >= k->respawn_at_ns && !d->draining) {
            if (spawn(d, k) == 0)
                k->restarts++;
            else
                k->respawn_at_ns = now + 1000000000ull;
        }
        if (!sample || !k->alive)
            continue;
        read_rss(k->p.pid, &k->rss_anon_kib, &k->rss_shmem_kib);
        if (k->role == ROLE_SYNTHD && d->o.synth_rss_max && !k->kill_reason[0] &&
            (uint64_t)k->rss_anon_kib * 1024 > d->o.synth_rss_max) {
            snprintf(k->kill_reason, sizeof(k->kill_reason),
                     "RssAnon %.1f MiB exceeded --synth-rss-max %.1f MiB",
                     k->rss_anon_kib / 1024.0, d->o.synth_rss_max / 1048576.0);
            daemon_log("killing synthd pid %d: %s", (int)k->p.pid, k->kill_reason);
            d->c.rss_kills++;
            proc_kill(&k->p, SIGKILL);
        }
    }
}

void kids_shutdown(struct daemon *d)
{
    static struct ctl_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CTL_SHUTDOWN;
    for (unsigned i = 0; i < d->nkids; i++)
        if (d->kids[i].alive)
            ctl_send(d->kids[i].p.ctl, &m, NULL, 0);
    for (unsigned i = 0; i < d->nkids; i++)
        if (d->kids[i].alive) {
            proc_wait(&d->kids[i].p, 5000);
            d->kids[i].alive = 0;
            proc_close(&d->kids[i].p);
        }
}
