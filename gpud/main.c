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
#include <pthread.h>
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

/* Workers and the main thread send: one message at a time on the socket,
 * each built in its thread's own buffer. */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

static void send_locked(const struct ctl_msg *m)
{
    pthread_mutex_lock(&send_lock);
    child_send(&args, m);
    pthread_mutex_unlock(&send_lock);
}

static void send_msg(uint32_t type, uint64_t job, uint32_t part, uint32_t key_id, int status,
                     const struct stage_times *t, const char *text)
{
    static __thread struct ctl_msg m;
    ctl_init(&m, type);
    m.job_id = job;
    m.partition = part;
    m.key_id = key_id;
    m.status = status;
    if (t)
        m.times = *t;
    ctl_text(&m, "%s", text ? text : "");
    send_locked(&m);
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

/* Fault tests only: $SLOTPROVE_FAULT_RELEASED_MS stretches only the time
 * after a slot's early release, so with two workers gpud holds two
 * released partitions at once. */
static void fault_delay_released(void)
{
    const char *s = getenv("SLOTPROVE_FAULT_RELEASED_MS");
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
/* the partition this worker thread proves, for send_progress */
static __thread struct progress_ctx *worker_pc;

/* Each finished stage goes to the supervisor: progress for long proofs.
 * The backend is shared by the workers; the partition is the calling
 * thread's. */
static void send_progress(void *arg, enum stage s, uint64_t ns)
{
    struct progress_ctx *p = worker_pc ? worker_pc : arg;
    static __thread struct ctl_msg m;
    if (!p)
        return;
    ctl_init(&m, CTL_PROGRESS);
    m.job_id = p->job;
    m.partition = p->partition;
    m.stage = (uint32_t)s;
    m.times.ns[s] = ns;
    send_locked(&m);
}

/* Every proof is checked (proof_self_check) before it leaves gpud, unless
 * the supervisor was started with --no-verify: it then sets
 * SLOTPROVE_NO_VERIFY=1 for its children. */
static int self_verify = 1;

/* Keys are loaded and dropped by the main thread while workers prove with
 * them: a worker holds the read side for a whole proof, a KEY_LOAD or
 * KEY_DROP the write side (writers first, so a stream of proofs cannot
 * starve a key load). */
static pthread_rwlock_t keys_lock;

/* A taken slot, handed from the main thread to a worker. */
struct work {
    uint32_t slot, gen;
    struct slot_header h;
};

#define MAX_WORKERS 4
static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
static struct work queue[MAX_WORKERS];
static unsigned queued, busy, nworkers, workers_quit;
static volatile int context_lost; /* the GPU's context is gone: exit, be restarted */

/* A backend's error as the supervisor should read it: a GPU backend's
 * failures are the device's (the partition is proved again), never the
 * input's; the CPU backend's are reported as they are. */
static int device_status(int rc)
{
    return strcmp(backend.ops->name, "cpu") == 0 ? rc : -SP_EDEVICE;
}

/* One partition, on a worker thread: the data off the slot (prove_start),
 * the early release, the proof, its check, the result. */
static void prove_work(const struct work *w)
{
    struct sp_err e = { "" };
    struct stage_times t;
    const struct slot_header *hp = &w->h;
    struct slot_header h = *hp;
    uint32_t slot = w->slot, gen = w->gen;
    uint64_t t0 = now_ns();
    int rc;

    memset(&t, 0, sizeof(t));
    const struct zkey *zk = &keys[h.key_id].zk;
    const uint8_t *p = pool_payload(&pool, slot);
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    struct prove_input in = { p + pl.a, p + pl.b, p + pl.c, p + pl.witness };
    void *job = NULL;
    /* the public signals, for the proof's check, before the slot goes */
    uint8_t *pub = malloc((size_t)zk->n_public * 32 + 32);
    if (pub)
        memcpy(pub, in.witness + 32, (size_t)zk->n_public * 32);
    rc = backend.ops->prove_start(&backend, zk, &in, &job, &e);
    /* the data is off the slot (or the start failed): either way it is free */
    slot_release(&pool, slot, gen, args.incarnation);
    pool_trace_buffers(&pool, "gpud", args.incarnation, "release");
    fault_delay();
    fault_delay_released();
    if (rc < 0) {
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, device_status(rc), NULL, e.msg);
        return;
    }
    struct groth16_proof proof;
    struct progress_ctx pc = { h.job_id, h.partition };
    worker_pc = &pc;
    rc = backend.ops->prove_finish(&backend, zk, job, &proof, &t, &e);
    if (rc < 0) {
        worker_pc = NULL;
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, device_status(rc), NULL, e.msg);
        return;
    }
    t.ns[STAGE_PROVE] = now_ns() - t0;
    if (self_verify) {
        rc = pub ? proof_self_check(zk, pub, &proof, &t.ns[STAGE_VERIFY], &e)
                 : sp_fail(&e, -ENOMEM, "gpud: out of memory for the public signals");
        if (rc == -SP_EVERIFY && backend.ops->reprove_cpu) {
            /* a GPU fault fails the check as an unsatisfied witness does:
             * prove once more on the CPU before saying which it was */
            fprintf(stderr, "gpud: the %s proof of job %llu partition %u failed its check; "
                    "proving it again on the CPU\n", backend.ops->name,
                    (unsigned long long)h.job_id, h.partition);
            e.msg[0] = 0;
            rc = backend.ops->reprove_cpu(&backend, zk, job, &proof, &t, &e);
            if (rc == 0)
                rc = proof_self_check(zk, pub, &proof, &t.ns[STAGE_VERIFY], &e);
        }
        send_progress(&pc, STAGE_VERIFY, t.ns[STAGE_VERIFY]);
    }
    worker_pc = NULL;
    if (backend.ops->job_done)
        backend.ops->job_done(&backend, job);
    if (rc < 0) { /* a proof that fails is never sent */
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    /* the proof travels in binary; the supervisor formats it, once */
    static __thread struct ctl_msg m;
    ctl_init(&m, CTL_PROVED);
    m.job_id = h.job_id;
    m.partition = h.partition;
    m.key_id = h.key_id;
    m.times = t;
    /* first the public signals it was checked against, in order on this
     * socket: a witness computed by synthd (an input job) has no
     * public.json until now */
    for (uint32_t first = 0; pub && first < zk->n_public; first += CTL_TEXT_MAX / 32) {
        uint32_t n = zk->n_public - first < CTL_TEXT_MAX / 32 ? zk->n_public - first : CTL_TEXT_MAX / 32;
        ctl_init(&m, CTL_PUBLIC);
        m.job_id = h.job_id;
        m.partition = h.partition;
        m.key_id = h.key_id;
        m.slot = first;
        ctl_bytes(&m, pub + (size_t)first * 32, n * 32);
        send_locked(&m);
    }
    free(pub);
    ctl_init(&m, CTL_PROVED);
    m.job_id = h.job_id;
    m.partition = h.partition;
    m.key_id = h.key_id;
    m.times = t;
    ctl_bytes(&m, &proof, sizeof(proof));
    send_locked(&m);
}

static void *worker_main(void *arg)
{
    (void)arg;
    backend.progress = send_progress;
    for (;;) {
        pthread_mutex_lock(&work_lock);
        while (!queued && !workers_quit)
            pthread_cond_wait(&work_cond, &work_lock);
        if (!queued) {
            pthread_mutex_unlock(&work_lock);
            return NULL;
        }
        struct work w = queue[0];
        memmove(queue, queue + 1, (--queued) * sizeof(queue[0]));
        pthread_mutex_unlock(&work_lock);

        pthread_rwlock_rdlock(&keys_lock);
        prove_work(&w);
        pthread_rwlock_unlock(&keys_lock);
        /* the proof's freed working memory (copied-off vectors, MSM buckets
         * of every pool thread) goes back to the kernel: glibc keeps it in
         * per-thread arenas otherwise, and gpud's resident memory would creep
         * up proof after proof past one proof's working set, which the
         * memory bound counts once (tests/bench_pipeline.sh shows it) */
        malloc_trim(0);
#ifdef SLOTPROVE_CUDA
        if (cuda_backend_lost())
            context_lost = 1;
#endif
        pthread_mutex_lock(&work_lock);
        busy--;
        pthread_cond_broadcast(&work_cond);
        pthread_mutex_unlock(&work_lock);
    }
}

/* Waits up to 100 ms for a free worker; 1 when there is one. */
static int worker_free(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&work_lock);
    while (busy >= nworkers)
        if (pthread_cond_timedwait(&work_cond, &work_lock, &ts) == ETIMEDOUT)
            break;
    int ok = busy < nworkers;
    pthread_mutex_unlock(&work_lock);
    return ok;
}

/* Takes one READY slot and hands it to a free worker (the caller made sure
 * there is one). */
static void prove_slot(uint32_t slot, uint32_t gen)
{
    struct sp_err e = { "" };
    struct slot_header h;
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
    if ((rc = slot_read_header(&pool, slot, &h)) < 0 || (rc = check_header(&h, gen, &e)) < 0) {
        if (!e.msg[0])
            snprintf(e.msg, sizeof(e.msg), "slot %u: unreadable header", slot);
        slot_invalidate(&pool, slot, gen, args.incarnation);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    /* tell the supervisor who holds this partition now: if gpud dies after
     * the early release, only it knows the partition must be redone */
    send_msg(CTL_TAKEN, h.job_id, h.partition, h.key_id, 0, NULL, NULL);
    pthread_mutex_lock(&work_lock);
    queue[queued++] = (struct work){ slot, gen, h };
    busy++;
    pthread_cond_broadcast(&work_cond);
    pthread_mutex_unlock(&work_lock);
}

/* The backend's line for `status`, sent when it changed; asked at most
 * once a second (it reads the device's memory), not on every wake. */
static void send_backend_status(void)
{
    static char last[CTL_TEXT_MAX];
    static uint64_t asked_ns;
    char buf[512];
    uint64_t now = now_ns();
    if (!backend.ops->status || (asked_ns && now - asked_ns < 1000000000ull))
        return;
    asked_ns = now;
    if (backend.ops->status(&backend, buf, sizeof(buf)) < 0)
        return;
    if (strcmp(buf, last) == 0)
        return;
    snprintf(last, sizeof(last), "%s", buf);
    send_msg(CTL_BACKEND, 0, 0, 0, 0, NULL, buf);
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
    return quit_requested || context_lost;
}

/* Between proofs, while every worker is busy: keeps handling the
 * supervisor's messages until one is free. 1 to stop. */
static int wait_worker(void)
{
    while (!worker_free())
        if (between_proofs() || !child_supervisor_alive(&args))
            return 1;
    return quit_requested || context_lost;
}

/* Proves every READY slot: ring order first, then the table scan. */
static void drain_ready(void)
{
    static uint64_t hole_since;
    struct ring_ticket tk;
    for (;;) {
        if (ring_pending(&pool) && wait_worker())
            return;
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
        if (wait_worker())
            return;
        uint64_t before = slot_word(&pool, slot);
        prove_slot(slot, gen);
        if (slot_word(&pool, slot) == before || between_proofs())
            break; /* could not take it; try again on the next wake */
    }
}

static void key_drop(uint32_t id)
{
    const struct child_key *k = child_key_get(keys, id);
    if (k && backend.ops->key_drop)
        backend.ops->key_drop(&backend, &k->zk);
    child_key_drop(keys, id);
}

static void key_load(const struct ctl_msg *req, int fd)
{
    struct sp_err e = { "" };
    if (req->key_id < CTL_MAX_KEYS)
        key_drop(req->key_id); /* a reload replaces it */
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
        if (m.type == CTL_KEY_LOAD && nfds == 1) {
            pthread_rwlock_wrlock(&keys_lock);
            key_load(&m, fds[0]);
            pthread_rwlock_unlock(&keys_lock);
        } else if (m.type == CTL_KEY_DROP) {
            pthread_rwlock_wrlock(&keys_lock);
            key_drop(m.key_id);
            pthread_rwlock_unlock(&keys_lock);
        }
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
    /* --gpu: this gpud's one device, before anything touches CUDA */
    if (args.gpu && setenv("CUDA_VISIBLE_DEVICES", args.gpu, 1) < 0) {
        fprintf(stderr, "gpud: cannot select GPU %s\n", args.gpu);
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
    if (backend.ops->host_memory)
        backend.ops->host_memory(&backend, pool.payload, (size_t)pool.payload_bytes);
    nworkers = backend.ops->workers ? backend.ops->workers : 1;
    const char *ws = getenv("SLOTPROVE_GPUD_WORKERS"); /* benchmarks: 1 against 2 */
    if (ws && atoi(ws) >= 1 && atoi(ws) <= MAX_WORKERS)
        nworkers = (unsigned)atoi(ws);
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&keys_lock, &ra);
    pthread_t workers[MAX_WORKERS];
    for (unsigned i = 0; i < nworkers; i++)
        if (pthread_create(&workers[i], NULL, worker_main, NULL) != 0) {
            fprintf(stderr, "gpud: cannot start worker threads\n");
            return 2;
        }
    char hello[CTL_TEXT_MAX];
    snprintf(hello, sizeof(hello), "%s, %u worker%s", backend.description, nworkers,
             nworkers == 1 ? "" : "s");
    send_msg(CTL_HELLO, 0, 0, 0, 0, NULL, hello);
    send_backend_status();

    for (;;) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec ts = { .tv_sec = 1 };
        drain_ready();
        send_backend_status();
        if (quit_requested || context_lost)
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
    /* the partitions in the workers' hands finish (SHUTDOWN: "finish and
     * exit"); a lost GPU context ends them with errors at once */
    pthread_mutex_lock(&work_lock);
    workers_quit = 1;
    pthread_cond_broadcast(&work_cond);
    pthread_mutex_unlock(&work_lock);
    for (unsigned i = 0; i < nworkers; i++)
        pthread_join(workers[i], NULL);
    io_uring_queue_exit(&ring);
    if (context_lost) {
        fprintf(stderr, "gpud: the GPU's context was lost; exiting so a fresh gpud takes the GPU\n");
        pool_detach(&pool);
        return 1;
    }
    backend.ops->close(&backend);
    pool_detach(&pool);
    return 0;
}
