/*
 * gpud — the GPU-owning prover process (one per GPU; with no GPU, one that
 * runs the CPU backend).
 *
 * It sleeps in io_uring_wait_cqe on two requests: a read of its doorbell
 * eventfd (rung by synthd after each publish) and a poll of its control
 * socket (keys to load, shutdown). On every wake, and at least once a second,
 * it takes READY slots: first the ticket ring's FIFO order, then a scan of
 * the slot table for READY slots the ring missed (a producer that died
 * between reserving and publishing a ticket). Each slot is taken with a CAS
 * on exactly (READY, generation), its header checked against the key, its
 * data copied off by the backend, and released before the heavy work, so
 * synthd can refill it while this proof finishes. Payloads are mapped
 * read-only: gpud can never corrupt a slot it may have to prove again.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "child.h"
#include "child_keys.h"
#include "ctl.h"
#include "parallel.h"
#include "payload.h"
#include "pool.h"
#include "ring.h"
#include "self_check.h"
#include "slot.h"
#include "zkey.h"

#define HOLE_GRACE_NS 200000000ull /* an unpublished ring head older than this is skipped */

enum { TAG_DOORBELL = 1, TAG_CTL = 2 };

static struct child_args args;
static struct pool pool;
static struct backend backend;
static struct child_key keys[CTL_MAX_KEYS];
static struct io_uring ring;
static uint64_t doorbell_value;

static void send_msg(uint32_t type, uint64_t job, uint32_t part, uint32_t key_id, int status,
                     const struct stage_times *t, const char *text)
{
    static struct ctl_msg m;
    ctl_init(&m, type);
    m.job_id = job;
    m.partition = part;
    m.key_id = key_id;
    m.status = status;
    if (t)
        m.times = *t;
    ctl_text(&m, "%s", text ? text : "");
    child_send(&args, &m);
}


/* Fault tests only: $SLOTPROVE_FAULT_DELAY_MS stretches the time a slot is
 * PROVING and the time after its early release, so a test can kill gpud in
 * either window. */
static void fault_delay(void)
{
    const char *s = getenv("SLOTPROVE_FAULT_DELAY_MS");
    if (s)
        usleep((useconds_t)strtoul(s, NULL, 10) * 1000);
}

/* Checks a taken slot's header against the key it names and the pool. */
static int check_header(const struct slot_header *h, uint32_t gen, struct sp_err *e)
{
    if (h->gen != gen)
        return sp_fail(e, SP_EINTERNAL, "slot header generation %u != slot generation %u",
                       h->gen, gen);
    if (!child_key_get(keys, h->key_id))
        return sp_fail(e, SP_EINTERNAL, "slot names key %u, which gpud has not loaded", h->key_id);
    const struct zkey *zk = &keys[h->key_id].zk;
    if (h->domain_size != zk->domain_size || h->n_vars != zk->n_vars)
        return sp_fail(e, SP_EINTERNAL,
                       "slot header (domain %llu, nVars %llu) does not match key %s (domain %u, nVars %u)",
                       (unsigned long long)h->domain_size, (unsigned long long)h->n_vars,
                       keys[h->key_id].name, zk->domain_size, zk->n_vars);
    if (h->payload_bytes != payload_layout(zk->domain_size, zk->n_vars).total ||
        h->payload_bytes > pool.slot_bytes)
        return sp_fail(e, SP_EINTERNAL, "slot payload %llu bytes is inconsistent (slot %llu)",
                       (unsigned long long)h->payload_bytes, (unsigned long long)pool.slot_bytes);
    return 0;
}

struct progress_ctx {
    uint64_t job;
    uint32_t partition;
};

/* Each finished stage goes to the supervisor: progress for long proofs. */
static void send_progress(void *arg, enum stage s, uint64_t ns)
{
    struct progress_ctx *p = arg;
    static struct ctl_msg m;
    ctl_init(&m, CTL_PROGRESS);
    m.job_id = p->job;
    m.partition = p->partition;
    m.stage = (uint32_t)s;
    m.times.ns[s] = ns;
    child_send(&args, &m);
}

/* Every proof is checked (proof_self_check) before it leaves gpud, unless
 * the supervisor was started with --no-verify: it then sets
 * SLOTPROVE_NO_VERIFY=1 for its children. */
static int self_verify = 1;

static void prove_slot_(uint32_t slot, uint32_t gen);

/* Proves one slot, then hands the proof's freed working memory (the copied-off
 * vectors, MSM buckets of every worker thread) back to the kernel. glibc keeps
 * freed memory in its per-thread arenas otherwise, and gpud's resident memory
 * would creep up proof after proof past one proof's working set: the memory
 * bound counts that working set once (tests/bench_pipeline.sh shows it). */
static void prove_slot(uint32_t slot, uint32_t gen)
{
    prove_slot_(slot, gen);
    malloc_trim(0);
}

static void prove_slot_(uint32_t slot, uint32_t gen)
{
    struct sp_err e = { "" };
    struct slot_header h;
    struct stage_times t;
    uint64_t t0 = now_ns();
    int rc;

    /* A restarted gpud finds the READY slots its predecessor left before the
     * supervisor's KEY_LOADs (sent after HELLO) arrive: leave a slot whose
     * key is not loaded yet READY; the scan after the next wake takes it. */
    if (slot_read_header(&pool, slot, &h) == 0 && h.gen == gen && h.key_id < CTL_MAX_KEYS &&
        !child_key_get(keys, h.key_id))
        return;
    if (slot_take(&pool, slot, gen, args.incarnation) < 0)
        return; /* stale ticket: the slot moved on */
    pool_trace_buffers(&pool, "gpud", args.incarnation, "take");
    fault_delay();
    memset(&t, 0, sizeof(t));
    if ((rc = slot_read_header(&pool, slot, &h)) < 0 || (rc = check_header(&h, gen, &e)) < 0) {
        if (!e.msg[0])
            snprintf(e.msg, sizeof(e.msg), "slot %u: unreadable header", slot);
        slot_invalidate(&pool, slot, gen, args.incarnation);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    /* tell the supervisor who holds this partition now: if gpud dies after
     * the early release below, only it knows the partition must be redone */
    send_msg(CTL_TAKEN, h.job_id, h.partition, h.key_id, 0, NULL, NULL);
    const struct zkey *zk = &keys[h.key_id].zk;
    const uint8_t *p = pool_payload(&pool, slot);
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    struct prove_input in = { p + pl.a, p + pl.b, p + pl.c, p + pl.witness };
    void *job = NULL;
    /* the public signals, for the proof's check, before the slot goes */
    uint8_t *pub = self_verify ? malloc((size_t)zk->n_public * 32 + 32) : NULL;
    if (pub)
        memcpy(pub, in.witness + 32, (size_t)zk->n_public * 32);
    rc = backend.ops->prove_start(&backend, zk, &in, &job, &e);
    /* the data is off the slot (or the start failed): either way it is free */
    slot_release(&pool, slot, gen, args.incarnation);
    pool_trace_buffers(&pool, "gpud", args.incarnation, "release");
    fault_delay();
    if (rc < 0) {
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    struct groth16_proof proof;
    struct progress_ctx pc = { h.job_id, h.partition };
    backend.progress = send_progress;
    backend.progress_arg = &pc;
    rc = backend.ops->prove_finish(&backend, zk, job, &proof, &t, &e);
    backend.progress = NULL;
    if (rc < 0) {
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    t.ns[STAGE_PROVE] = now_ns() - t0;
    if (self_verify) {
        rc = pub ? proof_self_check(zk, pub, &proof, &t.ns[STAGE_VERIFY], &e)
                 : sp_fail(&e, -ENOMEM, "gpud: out of memory for the public signals");
        send_progress(&pc, STAGE_VERIFY, t.ns[STAGE_VERIFY]);
    }
    free(pub);
    if (rc < 0) { /* a proof that fails is never sent */
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    /* the proof travels in binary; the supervisor formats it, once */
    static struct ctl_msg m;
    ctl_init(&m, CTL_PROVED);
    m.job_id = h.job_id;
    m.partition = h.partition;
    m.key_id = h.key_id;
    m.times = t;
    ctl_bytes(&m, &proof, sizeof(proof));
    child_send(&args, &m);
}

static int handle_ctl(void);
static int quit_requested;

/* Between proofs: the supervisor's messages (a KEY_LOAD for a job that
 * waits for it, SHUTDOWN) are handled now, not after the last READY slot,
 * so a steady stream of work cannot starve a key load. 1 to stop. */
static int between_proofs(void)
{
    if (!quit_requested && handle_ctl())
        quit_requested = 1;
    return quit_requested;
}

/* Proves every READY slot: ring order first, then the table scan. */
static void drain_ready(void)
{
    static uint64_t hole_since;
    struct ring_ticket tk;
    for (;;) {
        if (ring_pop(&pool, &tk) == 0) {
            hole_since = 0;
            prove_slot(tk.slot, tk.gen);
            if (between_proofs())
                return;
            continue;
        }
        if (ring_pending(&pool) == 0) {
            hole_since = 0;
            break;
        }
        /* the head is reserved but unpublished: wait a grace period, then
         * step past it (the table scan below still finds its slot) */
        uint64_t now = now_ns();
        if (!hole_since)
            hole_since = now;
        if (now - hole_since < HOLE_GRACE_NS || ring_skip_hole(&pool) < 0)
            break;
        hole_since = 0;
    }
    uint32_t slot, gen;
    while (pool_oldest_ready(&pool, &slot, &gen) == 0) {
        uint64_t before = slot_word(&pool, slot);
        prove_slot(slot, gen);
        if (slot_word(&pool, slot) == before || between_proofs())
            break; /* could not take it; try again on the next wake */
    }
}

static void key_load(const struct ctl_msg *req, int fd)
{
    struct sp_err e = { "" };
    int rc = child_key_load(keys, req, fd, &e);
    if (rc < 0) {
        send_msg(CTL_KEY_ERR, 0, 0, req->key_id, rc, NULL, e.msg);
        return;
    }
    send_msg(CTL_KEY_OK, 0, 0, req->key_id, 0, NULL, NULL);
}

/* Handles every queued control message; returns 1 to exit. */
static int handle_ctl(void)
{
    static struct ctl_msg m;
    for (;;) {
        int fds[CTL_MAX_FDS], nfds;
        int rc = ctl_recv(args.ctl_fd, &m, fds, &nfds);
        if (rc == -EAGAIN)
            return 0;
        if (rc == -EPROTO)
            continue;
        if (rc <= 0)
            return 1; /* EOF: the supervisor is gone or closed us */
        int quit = 0;
        if (m.type == CTL_KEY_LOAD && nfds == 1)
            key_load(&m, fds[0]);
        else if (m.type == CTL_KEY_DROP)
            child_key_drop(keys, m.key_id);
        else if (m.type == CTL_SHUTDOWN)
            quit = 1;
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        if (quit)
            return 1;
    }
}

static int arm(int tag)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe)
        return -EBUSY;
    if (tag == TAG_DOORBELL)
        io_uring_prep_read(sqe, args.doorbell_fd, &doorbell_value, sizeof(doorbell_value), 0);
    else
        io_uring_prep_poll_add(sqe, args.ctl_fd, POLLIN);
    io_uring_sqe_set_data64(sqe, (uint64_t)tag);
    return io_uring_submit(&ring) < 0 ? -EIO : 0;
}

int main(int argc, char **argv)
{
    struct sp_err e = { "" };
    int rc;

    const char *nv = getenv("SLOTPROVE_NO_VERIFY");
    self_verify = !(nv && strcmp(nv, "1") == 0);
    if (child_start(&args, argc, argv, "gpud", &pool, PROT_READ) != 0)
        return 2;
    if ((rc = pool_select_ring(&pool, args.gpud_index)) < 0) {
        fprintf(stderr, "gpud: the pool has no ticket ring %u\n", args.gpud_index);
        return 2;
    }
    if ((rc = backend_open(&backend, args.backend,
                           args.threads ? args.threads : parallel_threads(), &e)) < 0) {
        fprintf(stderr, "gpud: %s\n", e.msg);
        return 2;
    }
    if ((rc = io_uring_queue_init(8, &ring, 0)) < 0) {
        fprintf(stderr, "gpud: io_uring_queue_init: %s\n", strerror(-rc));
        return 2;
    }
    fcntl(args.ctl_fd, F_SETFL, fcntl(args.ctl_fd, F_GETFL) | O_NONBLOCK);
    if (arm(TAG_DOORBELL) < 0 || arm(TAG_CTL) < 0) {
        fprintf(stderr, "gpud: cannot submit io_uring requests\n");
        return 2;
    }
    send_msg(CTL_HELLO, 0, 0, 0, 0, NULL, backend.ops->name);

    for (;;) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec ts = { .tv_sec = 1 };
        drain_ready();
        if (quit_requested)
            break;
        rc = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
        if (!child_supervisor_alive(&args))
            break;
        if (rc == -ETIME || rc == -EINTR)
            continue;
        if (rc < 0) {
            fprintf(stderr, "gpud: io_uring_wait_cqe: %s\n", strerror(-rc));
            return 1;
        }
        unsigned head, seen = 0;
        int quit = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            uint64_t tag = io_uring_cqe_get_data64(cqe);
            seen++;
            if (tag == TAG_DOORBELL)
                arm(TAG_DOORBELL);
            else if (tag == TAG_CTL) {
                quit |= handle_ctl();
                if (!quit)
                    arm(TAG_CTL);
            }
        }
        io_uring_cq_advance(&ring, seen);
        if (quit)
            break;
    }
    io_uring_queue_exit(&ring);
    backend.ops->close(&backend);
    pool_detach(&pool);
    return 0;
}
