/*
 * fleetd.c — `slotprove fleetd`: one host of the fleet (fleet.h).
 *
 * A process of its own beside the host's `serve`: a database that hangs or
 * fails can stall fleetd, never serve's slot pool (serve sees one more
 * socket client). The loop is a list of named decisions, each on its own
 * timer or descriptor:
 *
 *   serve's status (keys, slots)  -> register the host when they change
 *   database gone, backoff over   -> reconnect, LISTEN, drop stale leases
 *   an outcome not yet written    -> fenced write (deliver)
 *   heartbeat due                 -> extend held leases; note lost ones
 *   reap due                      -> reaper (one host at a time)
 *   free slots, NOTIFY or poll    -> claim, hand each partition to serve
 *   a serve connection readable   -> read the proof (or why not)
 *
 * While the database is away, partitions already handed to serve keep
 * proving; their outcomes wait in memory and are written on reconnect,
 * through the fence, so a lease that expired and went elsewhere meanwhile
 * is refused instead of written twice.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "fleet.h"
#include "sockpath.h"
#include "stop_signals.h"
#include "witness_open.h"

/* SIGTERM, SIGINT and SIGHUP are blocked in every thread (stop_signals.h)
 * and let through only while the loop waits in ppoll, where these handlers
 * take them. */
static volatile sig_atomic_t stop_requested, hup_seen;

static void on_stop(int sig)
{
    if (sig == SIGHUP)
        hup_seen = 1;
    else
        stop_requested = 1;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void say(const struct fleetd_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct fleetd_opts *o, const char *fmt, ...)
{
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(ts, sizeof(ts), "%H:%M:%S", localtime_r(&t, &tm));
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s slotprove fleetd %s: ", ts, o->host_id);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct fleetd {
    struct fleetd_opts o;
    unsigned slots_cap;        /* --slots, or 0: serve's */
    struct fleet_db db;
    struct fleet_part parts[FLEET_MAX_HELD];
    struct local_info li;
    int have_local;            /* serve answered the last status */
    char note[SP_ERR_MSG];     /* why this host takes no work, or "" */
    unsigned slots;            /* leases this host may hold at once */
    char reg_sig[SP_ERR_MSG + 64 * 80]; /* what was registered last */
    int registered, wake;
    uint64_t next_status, next_hb, next_reap, next_poll;
    uint64_t delivered, refused, released, failed;
};

static unsigned held(const struct fleetd *f)
{
    unsigned n = 0;
    for (unsigned i = 0; i < FLEET_MAX_HELD; i++)
        n += f->parts[i].used;
    return n;
}

/* serve's keys and slots; a change is registered again */
static void read_local(struct fleetd *f)
{
    struct sp_err e = { "" };
    f->have_local = local_status(f->o.socket, &f->li, &e) == 0;
    if (!f->have_local) {
        memset(&f->li, 0, sizeof(f->li));
        snprintf(f->note, sizeof(f->note), "no work taken: %s", e.msg);
    } else if (f->li.nkeys == 0) {
        snprintf(f->note, sizeof(f->note), "no work taken: serve at %s has no --key preloaded",
                 f->o.socket);
    } else {
        f->note[0] = 0;
    }
    if (f->have_local) /* serve away: keep the last slots; note says why, no claims */
        f->slots = f->li.slots;
    if (f->slots_cap && f->slots > f->slots_cap)
        f->slots = f->slots_cap;
    if (f->slots > FLEET_MAX_HELD)
        f->slots = FLEET_MAX_HELD;
    char sig[sizeof(f->reg_sig)];
    int n = snprintf(sig, sizeof(sig), "%u|%s", f->slots, f->note);
    for (unsigned i = 0; i < f->li.nkeys && n > 0 && (size_t)n < sizeof(sig); i++)
        n += snprintf(sig + n, sizeof(sig) - (size_t)n, "|%s=%s", f->li.keys[i].name,
                      f->li.keys[i].sha256);
    if (strcmp(sig, f->reg_sig) != 0) {
        memcpy(f->reg_sig, sig, sizeof(sig));
        f->registered = 0;
        if (f->have_local)
            say(&f->o, "serve at %s: %u slots, %u keys", f->o.socket, f->slots, f->li.nkeys);
        else
            say(&f->o, "%s", f->note);
    }
}

static void connect_db(struct fleetd *f)
{
    struct sp_err e = { "" };
    if (fleet_db_connect(&f->db, &e) < 0) {
        if (f->db.failures == 1 || f->db.failures % 20 == 0)
            say(&f->o, "%s (attempt %u; retrying in %u ms)", e.msg, f->db.failures,
                f->db.backoff_ms);
        return;
    }
    say(&f->o, "connected to the database");
    int v = fleet_schema_version(&f->db, &e);
    if (v != FLEET_SCHEMA_VERSION) {
        say(&f->o, "the database has fleet schema version %d, this fleetd needs %d (run "
                   "`slotprove fleet init`); retrying", v, FLEET_SCHEMA_VERSION);
        fleet_db_close(&f->db);
        f->db.next_try_ns = 0;
        f->db.backoff_ms = f->db.backoff_max_ms;
        f->db.next_try_ns = (uint64_t)mono_ms() * 1000000ull + f->db.backoff_max_ms * 1000000ull;
        return;
    }
    if (fleet_db_run(&f->db, "LISTEN " FLEET_NOTIFY_WORK, 0, NULL, &e) < 0)
        say(&f->o, "LISTEN: %s (polling only)", e.msg);
    f->registered = 0;
    f->wake = 1;
    int n = fleet_release_stale(&f->db, &f->o, f->parts, FLEET_MAX_HELD, &e);
    if (n > 0)
        say(&f->o, "released %d leases of an earlier fleetd on this host", n);
}

static void deliver_all(struct fleetd *f)
{
    for (unsigned i = 0; i < FLEET_MAX_HELD && f->db.pg; i++) {
        struct fleet_part *p = &f->parts[i];
        if (!p->used || p->outcome == PART_PROVING)
            continue;
        struct sp_err e = { "" };
        int refused = 0;
        if (fleet_deliver(&f->db, &f->o, p, &refused, &e) < 0) {
            say(&f->o, "job %s partition %d: writing the outcome: %s", p->job, p->idx, e.msg);
            if (f->db.pg) /* an SQL error, not a lost connection: do not spin on it */
                break;
            return;
        }
        if (refused) {
            f->refused++;
            say(&f->o, "job %s partition %d: lease %lld is no longer ours: outcome refused by "
                       "the fence", p->job, p->idx, p->token);
        } else if (p->outcome == PART_DONE) {
            f->delivered++;
        } else if (p->outcome == PART_FAILED) {
            f->failed++;
            say(&f->o, "job %s partition %d failed: %s", p->job, p->idx, p->error);
        } else {
            f->released++;
            say(&f->o, "job %s partition %d released: %s", p->job, p->idx, p->error);
        }
        fleet_part_clear(p);
        f->wake = 1;
    }
}

static void heartbeat(struct fleetd *f)
{
    unsigned lost[FLEET_MAX_HELD], nlost = 0;
    struct sp_err e = { "" };
    if (fleet_heartbeat(&f->db, &f->o, f->parts, FLEET_MAX_HELD, lost, &nlost, &e) < 0) {
        say(&f->o, "heartbeat: %s", e.msg);
        return;
    }
    /* a lost lease (reaped, or its job cancelled): its proof would be
     * refused by the fence, so serve stops proving it; an outcome already
     * read is still offered to the fence, which refuses it */
    for (unsigned i = 0; i < nlost; i++) {
        struct fleet_part *p = &f->parts[lost[i]];
        if (!p->lost) {
            say(&f->o, "job %s partition %d: lease %lld lost (expired and reaped, or the job "
                       "was cancelled)%s", p->job, p->idx, p->token,
                p->outcome == PART_PROVING ? ": cancelled in serve" : "");
            if (p->outcome == PART_PROVING)
                local_cancel(p, f->o.socket);
        }
        p->lost = 1;
    }
}

static void claim(struct fleetd *f)
{
    struct sp_err e = { "" };
    read_local(f);
    if (!f->have_local || !f->registered)
        return;
    unsigned h = held(f), busy = h > f->li.jobs_running ? h : f->li.jobs_running;
    if (busy >= f->slots)
        return;
    if (witness_open_stuck() >= WITNESS_OPEN_STUCK_MAX) { /* a hung mount: bounded threads */
        say(&f->o, "not claiming: %u witness reader threads are stuck (a hung mount?)",
            witness_open_stuck());
        return;
    }
    int n = fleet_claim(&f->db, &f->o, f->slots, f->slots - busy, f->parts, FLEET_MAX_HELD, &e);
    if (n < 0) {
        say(&f->o, "claim: %s", e.msg);
        return;
    }
    for (unsigned i = 0; i < FLEET_MAX_HELD && n > 0; i++) {
        struct fleet_part *p = &f->parts[i];
        if (!p->used || p->outcome != PART_PROVING || p->conn.fd >= 0 || p->wfd >= 0 || p->wo)
            continue;
        if (local_open(p, f->o.file_timeout_s, mono_ms(), &e) < 0)
            say(&f->o, "job %s partition %d: %s", p->job, p->idx, e.msg);
        n--;
    }
}

/* Witnesses being opened on helper threads (witness_open.h): each one
 * done goes to serve; one past its deadline fails its partition, and its
 * thread is left to end on its own. */
static void openers(struct fleetd *f, uint64_t now)
{
    for (unsigned i = 0; i < FLEET_MAX_HELD; i++) {
        struct fleet_part *p = &f->parts[i];
        if (!p->used || !p->wo)
            continue;
        struct sp_err e = { "" };
        if (witness_open_done(p->wo)) {
            if (local_start(p, f->o.socket, &e) < 0)
                say(&f->o, "job %s partition %d: %s", p->job, p->idx, e.msg);
            f->wake = 1;
        } else if (now >= p->wo_deadline_ms) {
            witness_open_abandon(p->wo);
            p->wo = NULL;
            p->outcome = PART_FAILED;
            snprintf(p->error, sizeof(p->error), "%s: reading the witness did not finish within "
                     "%u s (a hung mount?); %u reader threads of this fleetd are stuck",
                     p->wpath, f->o.file_timeout_s, witness_open_stuck());
            say(&f->o, "job %s partition %d: %s", p->job, p->idx, p->error);
            f->wake = 1;
        }
    }
}

static int parse_ms(const char *s, unsigned min, unsigned max, unsigned *out)
{
    return parse_count(s, min, max, out);
}

static void fleetd_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove fleetd --db CONNINFO [--socket PATH] [--host-id ID] [options]\n"
            "\n"
            "One host of a fleet: claims queued partitions from the PostgreSQL database\n"
            "for the keys the local `slotprove serve` has preloaded, as many as it has\n"
            "free slots, proves them through serve's socket and writes each result under\n"
            "its lease (run/fleet/README.md).\n"
            "\n"
            "options:\n"
            "  --db CONNINFO       libpq connection string or URI (role: slotprove_host)\n"
            "  --socket PATH       the local serve (default: $SLOTPROVE_SOCKET, else\n"
            "                      /run/slotprove/slotprove.sock)\n"
            "  --host-id ID        this host's name in the fleet (default: the hostname)\n"
            "  --slots N           lease at most N partitions at once (default: serve's\n"
            "                      --slots)\n"
            "  --lease-ms MS       lease length past the last heartbeat (default 60000)\n"
            "  --heartbeat-ms MS   heartbeat interval (default: lease / 6)\n"
            "  --poll-ms MS        claim attempts without a NOTIFY (default 2000)\n"
            "  --file-timeout SECS a leased witness not opened and hashed by then (a hung\n"
            "                      mount) fails its partition (default 30); witnesses are\n"
            "                      read on helper threads, never in fleetd's loop\n"
            "  --reap-ms MS        reaper interval (default: lease / 4)\n"
            "  --backoff-max-ms MS longest wait between reconnects (default 10000)\n"
            "  -h, --help          this text\n"
            "\n"
            "SIGTERM or SIGINT: stop claiming, finish and write what is held (at most one\n"
            "lease length), release the rest, exit 0; SIGHUP is logged and changes nothing.\n"
            "Exit 1 on a fatal error, 2 usage.\n");
}

int cmd_fleetd(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "socket", required_argument, NULL, 's' },
        { "host-id", required_argument, NULL, 'H' },
        { "slots", required_argument, NULL, 'S' },
        { "lease-ms", required_argument, NULL, 'L' },
        { "heartbeat-ms", required_argument, NULL, 'B' },
        { "poll-ms", required_argument, NULL, 'P' },
        { "file-timeout", required_argument, NULL, 'F' },
        { "reap-ms", required_argument, NULL, 'R' },
        { "backoff-max-ms", required_argument, NULL, 'X' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    static struct fleetd f; /* the part table is large */
    unsigned hb = 0, reap = 0, backoff_max = 10000;
    int c;
    sigset_t wait_mask; /* the mask while the loop waits: the stop signals let through */
    stop_signals_block(&wait_mask); /* before any thread exists */
    {
        sigset_t ss;
        stop_signals_set(&ss);
        for (int s = 1; s < NSIG; s++)
            if (sigismember(&ss, s))
                sigdelset(&wait_mask, s);
    }
    memset(&f, 0, sizeof(f));
    f.o.lease_ms = 60000;
    f.o.poll_ms = 2000;
    f.o.status_ms = 1000;
    f.o.file_timeout_s = 30;
    static char prog[] = "slotprove fleetd";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'd': f.o.conninfo = optarg; break;
        case 's': f.o.socket = optarg; break;
        case 'H':
            bad = strlen(optarg) < 1 || strlen(optarg) > FLEET_HOST_ID_MAX;
            snprintf(f.o.host_id, sizeof(f.o.host_id), "%s", optarg);
            break;
        case 'S': bad = parse_count(optarg, 1, FLEET_MAX_HELD, &f.slots_cap) < 0; break;
        case 'L': bad = parse_ms(optarg, 100, 86400000, &f.o.lease_ms) < 0; break;
        case 'B': bad = parse_ms(optarg, 10, 86400000, &hb) < 0; break;
        case 'P': bad = parse_ms(optarg, 10, 86400000, &f.o.poll_ms) < 0; break;
        case 'F': bad = parse_count(optarg, 1, 86400, &f.o.file_timeout_s) < 0; break;
        case 'R': bad = parse_ms(optarg, 10, 86400000, &reap) < 0; break;
        case 'X': bad = parse_ms(optarg, 100, 3600000, &backoff_max) < 0; break;
        case 'h': fleetd_usage(stdout); return 0;
        default: fleetd_usage(stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "slotprove fleetd: bad value \"%s\" (see --help for the ranges)\n",
                    optarg);
            return 2;
        }
    }
    if (optind < argc || !f.o.conninfo) {
        fprintf(stderr, "slotprove fleetd: %s\n\n", !f.o.conninfo ? "give --db CONNINFO"
                                                                  : "unexpected argument");
        fleetd_usage(stderr);
        return 2;
    }
    f.o.heartbeat_ms = hb ? hb : f.o.lease_ms / 6;
    f.o.reap_ms = reap ? reap : f.o.lease_ms / 4;
    if (f.o.heartbeat_ms * 2 > f.o.lease_ms) {
        fprintf(stderr, "slotprove fleetd: --heartbeat-ms %u must be at most half of "
                        "--lease-ms %u\n", f.o.heartbeat_ms, f.o.lease_ms);
        return 2;
    }
    if (!f.o.socket)
        f.o.socket = default_socket_path();
    if (!f.o.host_id[0] && gethostname(f.o.host_id, sizeof(f.o.host_id) - 1) < 0)
        snprintf(f.o.host_id, sizeof(f.o.host_id), "host");
    f.db.conninfo = f.o.conninfo;
    f.db.backoff_max_ms = backoff_max;
    for (unsigned i = 0; i < FLEET_MAX_HELD; i++) {
        f.parts[i].wfd = -1;
        f.parts[i].conn.fd = -1;
    }
    struct sigaction sa = { .sa_handler = on_stop };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    say(&f.o, "lease %u ms, heartbeat %u ms, poll %u ms, reap %u ms", f.o.lease_ms,
        f.o.heartbeat_ms, f.o.poll_ms, f.o.reap_ms);

    uint64_t drain_until = 0, started = mono_ms();
    for (;;) {
        uint64_t now = mono_ms();
        if (hup_seen) {
            hup_seen = 0;
            say(&f.o, "SIGHUP: nothing to reload (restart fleetd to change its options); carrying on");
        }
        if (stop_requested && !drain_until) {
            drain_until = now + f.o.lease_ms;
            say(&f.o, "stopping: finishing %u held partitions", held(&f));
        }
        if (drain_until && (held(&f) == 0 || now >= drain_until)) {
            for (unsigned i = 0; i < FLEET_MAX_HELD; i++)
                if (f.parts[i].used && f.parts[i].outcome == PART_PROVING) {
                    f.parts[i].outcome = PART_RELEASE;
                    snprintf(f.parts[i].error, sizeof(f.parts[i].error), "fleetd stopped");
                }
            deliver_all(&f);
            break;
        }
        if (now >= f.next_status) {
            read_local(&f);
            f.next_status = now + f.o.status_ms;
        }
        if (!f.db.pg && now * 1000000ull >= f.db.next_try_ns)
            connect_db(&f);
        if (f.db.pg)
            deliver_all(&f);
        if (f.db.pg && !f.registered) {
            struct sp_err e = { "" };
            if (fleet_register(&f.db, &f.o, f.slots, &f.li, f.note, &e) == 0)
                f.registered = 1;
            else
                say(&f.o, "register: %s", e.msg);
        }
        if (f.db.pg && now >= f.next_hb) {
            heartbeat(&f);
            f.next_hb = now + f.o.heartbeat_ms;
        }
        if (f.db.pg && now >= f.next_reap) {
            struct sp_err e = { "" };
            int n = fleet_reap(&f.db, &e);
            if (n < 0)
                say(&f.o, "reaper: %s", e.msg);
            else if (n > 0)
                say(&f.o, "reaper: %d expired leases taken back", n);
            f.next_reap = now + f.o.reap_ms;
        }
        openers(&f, now);
        if (f.db.pg && !drain_until && (f.wake || now >= f.next_poll)) {
            f.wake = 0;
            claim(&f);
            f.next_poll = now + f.o.poll_ms;
        }

        /* wait for the database, serve's answers or the next timer */
        struct pollfd pfd[2 * FLEET_MAX_HELD + 1];
        unsigned who[2 * FLEET_MAX_HELD + 1], n = 0;
        if (f.db.pg) {
            pfd[n] = (struct pollfd){ .fd = PQsocket(f.db.pg), .events = POLLIN };
            who[n++] = FLEET_MAX_HELD;
        }
        int pending = 0, timeout_cap = 1 << 30;
        for (unsigned i = 0; i < FLEET_MAX_HELD; i++) {
            struct fleet_part *p = &f.parts[i];
            if (p->used && p->outcome == PART_PROVING && p->conn.fd >= 0) {
                pfd[n] = (struct pollfd){ .fd = p->conn.fd, .events = POLLIN };
                who[n++] = i;
            }
            pending |= p->used && p->outcome != PART_PROVING;
            if (p->used && p->wo) { /* its opener's end (handled by openers()) */
                pfd[n] = (struct pollfd){ .fd = witness_open_pollfd(p->wo), .events = POLLIN };
                who[n++] = FLEET_MAX_HELD + 1;
                uint64_t t = mono_ms();
                int until = p->wo_deadline_ms > t ? (int)(p->wo_deadline_ms - t) : 0;
                if (until < timeout_cap)
                    timeout_cap = until;
            }
        }
        uint64_t next = f.next_status;
        if (f.db.pg) {
            if (f.next_hb < next) next = f.next_hb;
            if (f.next_reap < next) next = f.next_reap;
            if (!drain_until && f.next_poll < next) next = f.next_poll;
        } else if (f.db.next_try_ns / 1000000ull < next) {
            next = f.db.next_try_ns / 1000000ull;
        }
        now = mono_ms();
        int timeout = next > now ? (int)(next - now) : 0;
        if (pending && f.db.pg && timeout > 50)
            timeout = 50; /* an outcome the last pass could not write: retry soon */
        if (timeout > timeout_cap)
            timeout = timeout_cap; /* an opener's deadline */
        if (f.wake)
            timeout = 0;
        struct timespec ts = { timeout / 1000, (long)(timeout % 1000) * 1000000L };
        int rc = ppoll(pfd, n, &ts, &wait_mask);
        if (rc < 0 && errno != EINTR) {
            say(&f.o, "poll: %s", strerror(errno));
            return 1;
        }
        for (unsigned k = 0; rc > 0 && k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (who[k] == FLEET_MAX_HELD) {
                if (!PQconsumeInput(f.db.pg)) {
                    char msg[400];
                    snprintf(msg, sizeof(msg), "%s", PQerrorMessage(f.db.pg));
                    fleet_one_line(msg);
                    say(&f.o, "the database connection was lost: %s", msg);
                    fleet_db_close(&f.db);
                    f.db.next_try_ns = 0;
                    continue;
                }
                PGnotify *nt;
                while ((nt = PQnotifies(f.db.pg))) {
                    f.wake = 1;
                    PQfreemem(nt);
                }
            } else if (who[k] < FLEET_MAX_HELD) {
                local_finish(&f.parts[who[k]]);
                f.wake = 1;
            }
        }
    }
    say(&f.o, "stopped: %llu proofs written, %llu refused by the fence, %llu released, "
              "%llu failed; %llu statements, %.3f s waiting on the database in %.3f s",
        (unsigned long long)f.delivered, (unsigned long long)f.refused,
        (unsigned long long)f.released, (unsigned long long)f.failed,
        (unsigned long long)f.db.calls, f.db.busy_ns / 1e9, (mono_ms() - started) / 1e3);
    if (f.db.pg) {
        struct sp_err e = { "" };
        const char *p[1] = { f.o.host_id };
        fleet_db_run(&f.db, "UPDATE fleet_hosts SET slots = 0, note = 'fleetd stopped' "
                            "WHERE host_id = $1", 1, p, &e);
    }
    fleet_db_close(&f.db);
    return 0;
}
