/*
 * synthd — the synthesizer process.
 *
 * Loads keys (the coefficient section, through the shared read-only key
 * mapping, plus the key's synthesis index, built by the first synthd into
 * a sealed memfd and mapped by the others: synth_index_share.h) and, for
 * each partition the supervisor hands it: claims a FREE slot (waiting on the pool's free_seq futex when
 * none is free — the pool is the backpressure), preads the witness straight
 * into the slot, computes a = A·w, b = B·w into the slot (gpud forms c =
 * a∘b: shm/payload.h), writes the
 * slot header, publishes the slot (READY + ticket) and rings gpud's doorbell.
 * A bellperson key (KEY_LOAD of kind CTL_KEY_BELLPERSON) brings cuzk's
 * constraint file instead of a zkey: a, b come from its CSR rows
 * (bellperson_synth.h, its row in key_synth.h), into the same slot layout.
 * It never talks to the GPU. It may be SIGKILLed at any moment: the
 * supervisor reclaims a FILLING slot after reaping it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "child.h"
#include "child_keys.h"
#include "ctl.h"
#include "fault_point.h"
#include "key_synth.h"
#include "parallel.h"
#include "payload.h"
#include "pool.h"
#include "pool_scan.h"
#include "publish.h"
#include "slot.h"
#include "synth.h"
#include "synth_index_share.h"
#include "witness_program.h"
#include "witness_mismatch.h"
#include "witness_sandbox.h"
#include "witness_read.h"
#include "wtns.h"
#include "zkey.h"
#include "log_stamp.h"


static struct child_args args;
static struct pool pool;
static int trace_buffers; /* --trace-buffers 1 from the supervisor */
static struct child_key keys[CTL_MAX_KEYS];
static struct synth_index index_of[CTL_MAX_KEYS]; /* per loaded key */
static unsigned nthreads;
static struct synth_wcopy wcopy; /* the witness's private huge-page copy (witness_read.h) */
static int trace_buffers; /* --trace-buffers 1 from the supervisor */

static void reply(const struct ctl_msg *req, uint32_t type, int status, const char *text)
{
    struct ctl_msg m;
    ctl_init(&m, type);
    m.key_id = req->key_id;
    m.job_id = req->job_id;
    m.load_seq = req->load_seq; /* KEY_ERR: the load it answers */
    m.partition = req->partition;
    m.status = status;
    ctl_text(&m, "%s", text ? text : "");
    child_send(&args, &m);
}

static void key_drop(uint32_t id)
{
    if (id < CTL_MAX_KEYS)
        synth_index_free(&index_of[id]); /* none (zeroed) for a key without one */
    child_key_drop(keys, id);
}

/* KEY_OK with the shared index's memfd (synth_index_share.h), waiting
 * while the socket is full as child_send does. */
static void reply_key_ok(const struct ctl_msg *req, int index_fd)
{
    struct ctl_msg m;
    ctl_init(&m, CTL_KEY_OK);
    m.key_id = req->key_id;
    m.load_seq = req->load_seq; /* the supervisor's, echoed */
    for (;;) {
        int rc = ctl_send(args.ctl_fd, &m, &index_fd, index_fd >= 0 ? 1 : 0);
        if ((rc != -EAGAIN && rc != -ENOBUFS) || !child_supervisor_alive(&args))
            return;
        struct pollfd p = { .fd = args.ctl_fd, .events = POLLOUT };
        poll(&p, 1, 1000);
    }
}

/* A zkey's index is built (or mapped) on a thread of its own, so that an
 * input job the supervisor sends right behind the KEY_LOAD starts its
 * witness program while the index is built (the program needs nothing of
 * the key's; `fullprove` on SHA-256 waited for both one after the other).
 * KEY_OK (or KEY_ERR) goes out when the build is done: from the main loop,
 * which polls the build's eventfd, or before the partition's sums, which
 * need the index. One build at a time; every other message waits for it. */
static struct {
    int active;          /* a build is pending (its KEY_LOAD unanswered) */
    int threaded;        /* on th (else it ran in place) */
    pthread_t th;
    struct ctl_msg req;  /* the KEY_LOAD */
    int offered;         /* the supervisor sent another synthd's index */
    int shared_fd;       /* that index (a dup), or -1 */
    int index_fd;        /* the index this build shares (KEY_OK's), or -1 */
    int rc;
    struct sp_err e;
    int done_fd;         /* eventfd, written when a build ends */
} build = { .shared_fd = -1, .index_fd = -1, .done_fd = -1 };

static void *build_index(void *arg)
{
    (void)arg;
    uint32_t id = build.req.key_id;
    const struct zkey *zk = &keys[id].zk;
    /* a shared index that does not check out is not this key's fault:
     * build a private one instead (the key's own entries decide) */
    if (!build.offered)
        build.rc = synth_index_build_shared(&index_of[id], zk, &build.index_fd, &build.e);
    else if (build.shared_fd < 0 ||
             synth_index_map_shared(&index_of[id], zk, build.shared_fd, &build.e) < 0)
        build.rc = synth_index_build(&index_of[id], zk, &build.e);
    uint64_t one = 1;
    if (write(build.done_fd, &one, sizeof(one)) < 0) {
        /* key_settle joins the thread whether or not the loop saw this */
    }
    return NULL;
}

/* Waits for the pending build, if any, and answers its KEY_LOAD. */
static void key_settle(void)
{
    if (!build.active)
        return;
    if (build.threaded)
        pthread_join(build.th, NULL);
    build.active = build.threaded = 0;
    uint64_t v;
    if (read(build.done_fd, &v, sizeof(v)) < 0) {
        /* nonblocking, and already drained */
    }
    if (build.shared_fd >= 0)
        close(build.shared_fd);
    build.shared_fd = -1;
    if (build.rc < 0) {
        child_key_drop(keys, build.req.key_id);
        reply(&build.req, CTL_KEY_ERR, build.rc, build.e.msg);
    } else {
        reply_key_ok(&build.req, build.index_fd);
    }
    if (build.index_fd >= 0)
        close(build.index_fd);
    build.index_fd = -1;
}

/* KEY_LOAD: the key's descriptors (child_key_nfds of its kind); after
 * them, when the supervisor has one, the index another synthd built for it
 * (mapped, not rebuilt). A key with an index (key_synth.h) has it built in
 * the background (above); any other loads here. */
static void key_load(const struct ctl_msg *req, const int *fds, int nfds)
{
    struct sp_err e = { "" };
    key_settle();
    key_drop(req->key_id);
    int rc = child_key_load(keys, req, fds, nfds, nthreads, &e);
    if (rc < 0) {
        reply(req, CTL_KEY_ERR, rc, e.msg);
        return;
    }
    if (!key_synth(&keys[req->key_id])->index) {
        reply_key_ok(req, -1);
        return;
    }
    build.req = *req;
    build.rc = 0;
    build.e.msg[0] = 0;
    build.index_fd = -1;
    int nkey = child_key_nfds(req->key_kind);
    build.offered = nfds > nkey;
    build.shared_fd = build.offered ? dup(fds[nkey]) : -1; /* -1: a private build */
    build.active = 1;
    build.threaded = pthread_create(&build.th, NULL, build_index, NULL) == 0;
    if (!build.threaded) { /* no thread to spare: build here and answer */
        build_index(NULL);
        key_settle();
    }
}

/* Claims a FREE slot, sleeping on free_seq while none is. Gives up only if
 * the supervisor is gone. */
static int claim_slot(uint32_t *slot, uint32_t *gen)
{
    for (;;) {
        uint32_t seen = pool_free_seq(&pool);
        int rc = slot_claim(&pool, args.incarnation, slot, gen);
        if (rc != -EAGAIN)
            return rc;
        if (!child_supervisor_alive(&args))
            return -ESRCH;
        slot_wait_free(&pool, seen, 1000);
    }
}


/* Fault test "synthd-bloat": grow RssAnon by $SLOTPROVE_FAULT_BYTES (default
 * 512 MiB), as a runaway synthesis would, and keep it until the supervisor's
 * RSS limit kills this process: a test then does not depend on the limit's
 * 200 ms sampling catching a short peak on a busy box. At most
 * BLOAT_HOLD_S, under the supervisor's 2-minute stall deadline, then the
 * partition goes on. */
#define BLOAT_HOLD_S 60
static void bloat_if_asked(const char *wname)
{
    if (!fault_point("synthd-bloat", wname))
        return;
    const char *s = getenv("SLOTPROVE_FAULT_BYTES");
    size_t n = s ? strtoull(s, NULL, 10) : (512ull << 20);
    char *p = malloc(n);
    if (p) {
        memset(p, 0x5a, n);
        /* the stores are dead before free(): without this barrier the
         * compiler drops the memset and RssAnon never grows */
        __asm__ volatile("" : : "r"(p) : "memory");
        sleep(BLOAT_HOLD_S);
    }
    free(p);
}

/* CPU time of this process, all threads (CLOCK_PROCESS_CPUTIME_ID), in ns:
 * synthd works on one partition at a time, so a difference around one
 * partition is that partition's cost in core-seconds. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* wname: the witness's name for messages; pinned: check it against
 * req->pin (a client's file; a witness program's output is synthd's own). */
static void synthesize(const struct ctl_msg *req, int wfd, const char *wname, int pinned)
{
    struct sp_err e = { "" };
    struct wtns w;
    int rc;

    const struct child_key *k = child_key_get(keys, req->key_id);
    if (!k) {
        reply(req, CTL_SYNTH_ERR, -EINVAL, "synthd: key not loaded");
        return;
    }
    const struct key_shape *zk = &k->shape;
    const struct synth_index *ix = &index_of[req->key_id];
    const struct key_synth *ks = key_synth(k);
    if ((rc = wtns_open(&w, wfd, wname, &e)) < 0 || (rc = wtns_check_shape(&w, zk, &e)) < 0) {
        reply(req, CTL_SYNTH_ERR, rc, e.msg);
        return;
    }
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    uint64_t need = pl.total;
    if (need > pool.slot_bytes) {
        sp_fail(&e, SP_ESLOTSIZE, "%s: needs %llu-byte slots, the pool has %llu", k->name,
                (unsigned long long)need, (unsigned long long)pool.slot_bytes);
        reply(req, CTL_SYNTH_ERR, -SP_ESLOTSIZE, e.msg);
        return;
    }

    uint32_t slot, gen;
    uint64_t t_wait = now_ns();
    if ((rc = claim_slot(&slot, &gen)) < 0) {
        reply(req, CTL_SYNTH_ERR, rc, "synthd: cannot claim a slot");
        return;
    }
    /* the wait for a slot is backpressure, not synthesis: reported apart */
    uint64_t t_claimed = now_ns(), cpu0 = cpu_ns();
    pool_trace_buffers(&pool, trace_buffers, "synthd", args.incarnation, "claim");
    fault_point_kill("synthd-fill", wname);
    bloat_if_asked(wname);
    uint8_t *p = pool_payload(&pool, slot);
    uint8_t *a = p + pl.a, *b = p + pl.b, *wit = p + pl.witness;
    /* pread straight into the slot; for a large circom witness also into
     * the private huge-page copy synth_ab gathers from (witness_read.h) */
    const void *gw = wit;
    if ((rc = synth_read_witness_copy(&w, wfd, wit, ks->wcopy ? &wcopy : NULL,
                                      &gw, nthreads, &e)) < 0 ||
        (pinned &&
         (rc = wtns_pin_check(&req->pin, wfd, wit + 32, (size_t)zk->n_public * 32, wname, &e)) < 0)) {
        synth_wcopy_done(&wcopy);
        slot_abandon(&pool, slot, gen, args.incarnation);
        reply(req, CTL_SYNTH_ERR, rc, e.msg);
        return;
    }
    if ((rc = ks->fill(k, ix, gw, wit, a, b, wname, nthreads, &e)) < 0) {
        synth_wcopy_done(&wcopy);
        slot_abandon(&pool, slot, gen, args.incarnation);
        reply(req, CTL_SYNTH_ERR, rc, e.msg);
        return;
    }
    synth_wcopy_done(&wcopy);

    struct slot_header h;
    memset(&h, 0, sizeof(h));
    h.gen = gen;
    h.job_id = req->job_id;
    h.partition = req->partition;
    h.key_id = req->key_id;
    h.domain_size = zk->domain_size;
    h.n_vars = zk->n_vars;
    h.payload_bytes = need;
    h.t_claim_ns = t_claimed;
    slot_write_header(&pool, slot, &h);
    /* the ticket goes to the ring of the gpud the supervisor named (any
     * gpud may still take the slot: they also scan the table) */
    uint32_t g = req->gpud < args.ndoorbells ? req->gpud : 0;
    /* synthesis ends before the publish: once published, gpud may take the
     * slot and start its own clock at once, and the two spans must not
     * overlap (a partition's latency covers slot wait + synth + prove) */
    uint64_t t_done = now_ns(), cpu1 = cpu_ns();
    if ((rc = slot_publish(&pool, g, slot, gen, args.incarnation)) < 0) {
        reply(req, CTL_SYNTH_ERR, rc, "synthd: slot was taken from us (stale generation)");
        return;
    }
    pool_trace_buffers(&pool, trace_buffers, "synthd", args.incarnation, "publish");
    uint64_t one = 1;
    if (write(args.doorbell_fd + (int)g, &one, sizeof(one)) < 0) {
        /* gpud also rescans the table on its timeout: a lost ring is slow, not lost */
    }
    struct ctl_msg m;
    ctl_init(&m, CTL_SYNTH_DONE);
    m.key_id = req->key_id;
    m.job_id = req->job_id;
    m.partition = req->partition;
    m.slot = slot;
    m.gen = gen;
    m.times.ns[STAGE_SYNTH] = t_done - t_claimed;
    m.slot_wait_ns = t_claimed - t_wait;
    m.cpu_ns = cpu1 - cpu0;
    child_send(&args, &m);
}

/* An input partition: fds[0] the input (a sealed memfd), fds[1] the key's
 * witness program, then its naux pinned companions (the .dat; or
 * generate_witness.js, witness_calculator.js); text
 * "INPUT_NAME\0PROGRAM_PATH". The program's failure is the input's:
 * SYNTH_ERR with its message, never a crash of synthd. */
static void synthesize_input(const struct ctl_msg *req, int input_fd, int prog_fd,
                             const int *aux, int naux)
{
    struct sp_err e = { "" };
    struct witness_limits lim;
    char name[256], wname[300];
    size_t nlen = strnlen(req->text, req->text_len);
    const char *prog = nlen + 1 < req->text_len ? req->text + nlen + 1 : "";
    const struct child_key *k = child_key_get(keys, req->key_id);
    int wfd = -1;

    snprintf(name, sizeof(name), "%.255s", req->text);
    if (!k || !*prog) {
        reply(req, CTL_SYNTH_ERR, -EINVAL, !k ? "synthd: key not loaded"
                                              : "synthd: SYNTH of an input without a program path");
        return;
    }
    witness_limits_init(&lim, args.witness_mem, args.witness_cpu, args.witness_time);
    /* .wtns: header 12, section 1 (12 + 40), section 2 header 12, values */
    uint64_t max_wtns = 76 + (uint64_t)k->shape.n_vars * 32 + 4096;
    fault_point_kill("synthd-witness", name);
    int rc = witness_program_run(prog_fd, prog, aux, naux, input_fd, name, &lim, max_wtns, &wfd, &e);
    /* a program of another circuit: one message with both wire counts */
    if ((rc == 0 || rc == -EFBIG) &&
        witness_mismatch_check(wfd, rc == -EFBIG, max_wtns, name, prog, k->name, k->shape.n_vars,
                               &e) < 0)
        rc = -SP_EMISMATCH;
    if (rc < 0) {
        if (rc == -EFBIG)
            rc = -SP_EFORMAT;
        if (wfd >= 0)
            close(wfd);
        reply(req, CTL_SYNTH_ERR, rc, e.msg);
        return;
    }
    snprintf(wname, sizeof(wname), "%s (its witness program's .wtns)", name);
    key_settle(); /* the key's index, built while the program ran */
    synthesize(req, wfd, wname, 0);
    close(wfd);
}

int main(int argc, char **argv)
{
    int rc;

    /* `synthd --sandbox-probe`: can witness programs be boxed here?
     * (witness_sandbox.h; serve and fullprove ask before they take one) */
    if (argc == 2 && strcmp(argv[1], "--sandbox-probe") == 0) {
        struct sp_err e = { "" };
        if (witness_sandbox_probe(&e) < 0) {
            diag(LOG_ERR, "%s", e.msg);
            return 1;
        }
        return 0;
    }
    int start = child_start(&args, argc, argv, "synthd", &pool, PROT_READ | PROT_WRITE);
    if (start != 0)
        return start; /* 2: fatal (bad arguments); 1: the pool would not attach (shm/child.h) */
    trace_buffers = args.trace_buffers;
    witness_private_dirs_sweep(); /* what a killed predecessor left */
    nthreads = args.threads ? args.threads : parallel_threads();
    synth_wcopy_init(&wcopy, SYNTH_WCOPY_MIN_BYTES);
    struct ctl_msg hello;
    ctl_init(&hello, CTL_HELLO);
    child_send(&args, &hello);

    if ((build.done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        diag(LOG_ERR, "synthd: eventfd: %s", strerror(errno));
        return 2;
    }

    static struct ctl_msg m;
    for (;;) {
        struct pollfd pfd[2] = { { .fd = args.ctl_fd, .events = POLLIN },
                                 { .fd = build.done_fd, .events = POLLIN } };
        int pr = poll(pfd, 2, 1000);
        if (!child_supervisor_alive(&args))
            return 0;
        if (pr > 0 && (pfd[1].revents & POLLIN))
            key_settle(); /* a build ended: answer its KEY_LOAD */
        if (pr <= 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int fds[CTL_MAX_FDS], nfds;
        rc = ctl_recv(args.ctl_fd, &m, fds, &nfds);
        if (rc == 0)
            return 0; /* supervisor closed our socket */
        if (rc < 0) {
            if (rc == -EAGAIN || rc == -EPROTO)
                continue;
            return 1;
        }
        switch (m.type) {
        case CTL_KEY_LOAD: /* its descriptors checked by the loader (child_keys.h) */
            key_load(&m, fds, nfds);
            break;
        case CTL_SYNTH:
            /* an input job's witness program starts before the pending
             * build is waited for (synthesize_input settles it) */
            if (m.synth_mode == CTL_SYNTH_WITNESS && nfds == 1) {
                char wname[256];
                key_settle();
                snprintf(wname, sizeof(wname), "%.255s", m.text);
                synthesize(&m, fds[0], wname, 1);
            } else if (m.synth_mode == CTL_SYNTH_INPUT && nfds >= 2) {
                synthesize_input(&m, fds[0], fds[1], fds + 2, nfds - 2);
            } else {
                key_settle();
                reply(&m, CTL_SYNTH_ERR, -EINVAL, "SYNTH: its descriptors do not match its mode");
            }
            break;
        case CTL_KEY_DROP:
            key_settle();
            key_drop(m.key_id);
            break;
        case CTL_SHUTDOWN:
            key_settle();
            pool_detach(&pool);
            return 0;
        default:
            break;
        }
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
    }
}
