/* slot.c - slot state word transitions, header seqlock, derived counters.
 *
 * Ordering: every transition is a CAS on the word with acq_rel.  Release
 * publishes what the holder wrote (payload, header) to the next holder;
 * acquire makes the previous holder's accesses happen-before ours (synthd's
 * payload writes before gpud reads them; gpud's reads before the next synthd
 * overwrites them).  free_seq/ready_seq are bumped after the CAS, so a waiter
 * that reads the seq word, scans, then futex-waits on that value cannot miss
 * the transition.
 */
#include "slot.h"

#include "futex.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Header fields are plain integers accessed with relaxed atomics: same code
 * as plain loads/stores on x86, but a seqlock reader racing a writer is then
 * not undefined behaviour. */
#define HLOAD(f)      __atomic_load_n(&(f), __ATOMIC_RELAXED)
#define HSTORE(f, v)  __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)

#define READ_HEADER_SPINS   100
#define READ_HEADER_MAX_NS  2000000ULL   /* give up after ~2 ms */

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int bad_slot(const struct pool *pool, uint32_t slot)
{
    return pool == NULL || pool->slots == NULL || slot >= pool->nslots;
}

static int bad_owner(uint32_t owner)
{
    return owner == 0 || owner > SLOT_OWNER_MAX;
}

/* The one primitive: word from -> to, or -ESTALE if it was anything else. */
static int cas_word(struct slot_desc *d, uint64_t from, uint64_t to)
{
    return atomic_compare_exchange_strong_explicit(&d->word, &from, to,
               memory_order_acq_rel, memory_order_acquire) ? 0 : -ESTALE;
}

/* Seqlock writer.  Only the slot's holder writes, so writers never overlap.
 * If a previous writer died mid-write the counter is still odd: keep it odd
 * and continue from there. */
static uint32_t hdr_write_begin(struct slot_desc *d)
{
    uint32_t s = atomic_load_explicit(&d->hdr_seq, memory_order_relaxed) | 1u;

    atomic_store_explicit(&d->hdr_seq, s, memory_order_relaxed);
    /* Field stores below may not become visible before the odd count. */
    atomic_thread_fence(memory_order_release);
    return s;
}

static void hdr_write_end(struct slot_desc *d, uint32_t s)
{
    atomic_store_explicit(&d->hdr_seq, s + 1, memory_order_release);
}

/* A dead writer (we reaped it) left the seqlock odd: make it even again so
 * readers stop waiting.  Returns 1 if it had to. */
static int hdr_repair(struct slot_desc *d)
{
    uint32_t s = atomic_load_explicit(&d->hdr_seq, memory_order_acquire);

    if (!(s & 1u))
        return 0;
    atomic_store_explicit(&d->hdr_seq, s + 1, memory_order_release);
    return 1;
}

const char *slot_state_name(uint32_t state)
{
    static const char *const names[SLOT_NSTATES] = {
        "FREE", "FILLING", "READY", "PROVING"
    };

    return state < SLOT_NSTATES ? names[state] : "INVALID";
}

uint64_t slot_word(const struct pool *pool, uint32_t slot)
{
    if (bad_slot(pool, slot))
        return 0;
    return atomic_load_explicit(&pool->slots[slot].word, memory_order_acquire);
}

int slot_claim(struct pool *pool, uint32_t owner, uint32_t *slot, uint32_t *gen)
{
    uint32_t n, start;

    if (pool == NULL || pool->hdr == NULL || slot == NULL || gen == NULL ||
        bad_owner(owner))
        return -EINVAL;
    n = pool->nslots;
    /* Rotate the start so claimers spread over the table instead of all
     * fighting over slot 0. */
    start = atomic_fetch_add_explicit(&pool->hdr->claim_hint, 1,
                                      memory_order_relaxed) % n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = (start + i) % n;
        struct slot_desc *d = &pool->slots[s];
        uint64_t w = atomic_load_explicit(&d->word, memory_order_relaxed);
        uint32_t g;

        if (slot_state_of(w) != SLOT_FREE)
            continue;
        g = slot_gen_of(w) + 1;
        if (cas_word(d, w, slot_word_make(SLOT_FILLING, owner, g)) != 0)
            continue;                   /* lost the race; try the next */
        /* Ours now.  hdr_gen is left as is, marking the descriptive fields
         * stale until the owner writes them for generation g. */
        uint32_t sq = hdr_write_begin(d);
        HSTORE(d->t_claim_ns, now_ns());
        HSTORE(d->publish_seq, 0);
        HSTORE(d->t_publish_ns, 0);
        HSTORE(d->t_take_ns, 0);
        hdr_write_end(d, sq);
        *slot = s;
        *gen = g;
        return 0;
    }
    return -EAGAIN;
}

int slot_make_ready(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner,
                    uint64_t *publish_seq)
{
    struct slot_desc *d;
    uint64_t from, seq;
    uint32_t sq;

    if (bad_slot(pool, slot) || bad_owner(owner))
        return -EINVAL;
    d = &pool->slots[slot];
    from = slot_word_make(SLOT_FILLING, owner, gen);
    /* Cheap pre-check so a stale handle neither burns a publish_seq nor
     * writes into a header it does not own. */
    if (atomic_load_explicit(&d->word, memory_order_relaxed) != from)
        return -ESTALE;
    seq = atomic_fetch_add_explicit(&pool->hdr->publish_counter, 1,
                                    memory_order_relaxed);
    sq = hdr_write_begin(d);
    HSTORE(d->publish_seq, seq);
    HSTORE(d->t_publish_ns, now_ns());
    hdr_write_end(d, sq);
    /* Release: payload + header stores above are visible to the taker. */
    if (cas_word(d, from, slot_word_make(SLOT_READY, 0, gen)) != 0)
        return -ESTALE;
    if (publish_seq != NULL)
        *publish_seq = seq;
    return 0;
}

int slot_take(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner)
{
    struct slot_desc *d;
    uint32_t sq;

    if (bad_slot(pool, slot) || bad_owner(owner))
        return -EINVAL;
    d = &pool->slots[slot];
    /* Acquire: pairs with the publisher's release, payload now visible. */
    if (cas_word(d, slot_word_make(SLOT_READY, 0, gen),
                 slot_word_make(SLOT_PROVING, owner, gen)) != 0)
        return -ESTALE;
    sq = hdr_write_begin(d);
    HSTORE(d->t_take_ns, now_ns());
    hdr_write_end(d, sq);
    return 0;
}

/* from -> FREE(0, gen+1), then wake claimers. */
static int to_free(struct pool *pool, uint32_t slot, uint64_t from)
{
    struct slot_desc *d = &pool->slots[slot];

    /* Release: our payload reads finish before the next claimer writes. */
    if (cas_word(d, from, slot_word_make(SLOT_FREE, 0, slot_gen_of(from) + 1)) != 0)
        return -ESTALE;
    shm_futex_bump_wake(&pool->hdr->free_seq);
    return 0;
}

int slot_release(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner)
{
    if (bad_slot(pool, slot) || bad_owner(owner))
        return -EINVAL;
    return to_free(pool, slot, slot_word_make(SLOT_PROVING, owner, gen));
}

int slot_invalidate(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner)
{
    return slot_release(pool, slot, gen, owner);
}

int slot_abandon(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner)
{
    if (bad_slot(pool, slot) || bad_owner(owner))
        return -EINVAL;
    return to_free(pool, slot, slot_word_make(SLOT_FILLING, owner, gen));
}

int slot_force_free(struct pool *pool, uint32_t slot, uint32_t gen)
{
    if (bad_slot(pool, slot))
        return -EINVAL;
    for (;;) {
        uint64_t w = slot_word(pool, slot);
        uint32_t st = slot_state_of(w);

        if (slot_gen_of(w) != gen || (st != SLOT_READY && st != SLOT_PROVING))
            return -ESTALE;
        if (to_free(pool, slot, w) == 0)
            return 0;
        /* Changed under us (e.g. READY -> PROVING): re-check. */
    }
}

/* Fill e for slot s (word w) from its header.  The owner is dead, so there
 * is no concurrent writer: an odd seqlock means it died mid-write. */
static uint64_t reclaim_entry(const struct pool *pool, uint32_t s, uint64_t w,
                              struct reclaim_entry *e)
{
    struct slot_desc *d = &pool->slots[s];
    struct slot_header h;
    int torn = hdr_repair(d);

    e->slot = s;
    e->gen = slot_gen_of(w);
    e->job_id = 0;
    e->partition = 0;
    e->hdr_valid = 0;
    e->publish_seq = 0;
    if (slot_read_header(pool, s, &h) != 0)
        return 0;
    /* A FILLING owner may have died inside slot_write_header: fields torn.
     * A PROVING owner only ever writes t_take_ns, so its fields are whole. */
    if (h.gen == e->gen && !(torn && slot_state_of(w) == SLOT_FILLING)) {
        e->job_id = h.job_id;
        e->partition = h.partition;
        e->hdr_valid = 1;
    }
    return h.publish_seq;
}

int slot_reclaim_states(struct pool *pool, uint32_t dead, struct reclaim_report *rep)
{
    if (pool == NULL || pool->slots == NULL || bad_owner(dead))
        return -EINVAL;
    if (rep != NULL)
        rep->n_freed = rep->n_readied = 0;
    for (uint32_t s = 0; s < pool->nslots; s++) {
        for (;;) {
            uint64_t w = slot_word(pool, s);
            uint32_t st = slot_state_of(w), g = slot_gen_of(w);
            struct reclaim_entry e;
            uint64_t pseq;

            if (slot_owner_of(w) != dead ||
                (st != SLOT_FILLING && st != SLOT_PROVING))
                break;
            /* Read the header before the CAS: afterwards someone else may
             * own the slot and be rewriting it. */
            pseq = reclaim_entry(pool, s, w, &e);
            if (st == SLOT_FILLING) {
                if (cas_word(&pool->slots[s], w,
                             slot_word_make(SLOT_FREE, 0, g + 1)) != 0)
                    continue;
                if (rep != NULL)
                    rep->freed[rep->n_freed++] = e;
            } else {
                if (cas_word(&pool->slots[s], w,
                             slot_word_make(SLOT_READY, 0, g)) != 0)
                    continue;
                e.publish_seq = pseq;
                if (rep != NULL)
                    rep->readied[rep->n_readied++] = e;
            }
            break;
        }
    }
    shm_futex_bump_wake(&pool->hdr->free_seq);
    return 0;
}

void slot_write_header(struct pool *pool, uint32_t slot, const struct slot_header *h)
{
    struct slot_desc *d;
    uint64_t w;
    uint32_t sq;

    if (bad_slot(pool, slot) || h == NULL)
        return;
    d = &pool->slots[slot];
    w = atomic_load_explicit(&d->word, memory_order_relaxed);
    if (slot_state_of(w) != SLOT_FILLING)
        return;
    sq = hdr_write_begin(d);
    HSTORE(d->hdr_gen, slot_gen_of(w));
    HSTORE(d->job_id, h->job_id);
    HSTORE(d->partition, h->partition);
    HSTORE(d->key_id, h->key_id);
    HSTORE(d->domain_size, h->domain_size);
    HSTORE(d->n_vars, h->n_vars);
    HSTORE(d->payload_bytes, h->payload_bytes);
    hdr_write_end(d, sq);
}

int slot_read_header(const struct pool *pool, uint32_t slot, struct slot_header *out)
{
    struct slot_desc *d;
    uint64_t deadline = 0;

    if (bad_slot(pool, slot) || out == NULL)
        return -EINVAL;
    d = &pool->slots[slot];
    for (unsigned i = 0;; i++) {
        uint32_t s1 = atomic_load_explicit(&d->hdr_seq, memory_order_acquire);

        if (!(s1 & 1u)) {
            out->gen = HLOAD(d->hdr_gen);
            out->partition = HLOAD(d->partition);
            out->job_id = HLOAD(d->job_id);
            out->key_id = HLOAD(d->key_id);
            out->pad = 0;
            out->domain_size = HLOAD(d->domain_size);
            out->n_vars = HLOAD(d->n_vars);
            out->payload_bytes = HLOAD(d->payload_bytes);
            out->publish_seq = HLOAD(d->publish_seq);
            out->t_claim_ns = HLOAD(d->t_claim_ns);
            out->t_publish_ns = HLOAD(d->t_publish_ns);
            out->t_take_ns = HLOAD(d->t_take_ns);
            /* Field loads complete before the re-check of the count. */
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&d->hdr_seq, memory_order_relaxed) == s1)
                return 0;
        }
        /* Writer active: spin briefly, then yield to it, bounded in time
         * because a writer SIGKILLed mid-write never finishes. */
        if (i < READ_HEADER_SPINS)
            continue;
        if (deadline == 0)
            deadline = now_ns() + READ_HEADER_MAX_NS;
        else if (now_ns() > deadline)
            return -EAGAIN;
        sched_yield();
    }
}

int slot_wait_free(struct pool *pool, uint32_t seen_free_seq, int timeout_ms)
{
    if (pool == NULL || pool->hdr == NULL)
        return -EINVAL;
    return shm_futex_wait(&pool->hdr->free_seq, seen_free_seq, timeout_ms);
}

void pool_counts(const struct pool *pool, struct pool_counts *out)
{
    if (out == NULL)
        return;
    *out = (struct pool_counts){0};
    if (pool == NULL || pool->slots == NULL)
        return;
    /* One read per word: each slot is counted exactly once, so the counts
     * always add up to nslots even while transitions run. */
    for (uint32_t s = 0; s < pool->nslots; s++) {
        uint32_t st = slot_state_of(slot_word(pool, s));

        if (st < SLOT_NSTATES)
            out->slots[st]++;
        else
            out->invalid++;
    }
    for (int st = 0; st < SLOT_NSTATES; st++)
        out->bytes[st] = (uint64_t)out->slots[st] * pool->slot_bytes;
}

int pool_format_buffers(const struct pool *pool, const char *event, char *buf, size_t len)
{
    struct pool_counts c;
    uint64_t busy;
    int n;

    if (pool == NULL || event == NULL || buf == NULL)
        return -EINVAL;
    pool_counts(pool, &c);
    busy = c.bytes[SLOT_FILLING] + c.bytes[SLOT_READY] + c.bytes[SLOT_PROVING] +
           (uint64_t)c.invalid * pool->slot_bytes;
    n = snprintf(buf, len, "BUFFERS[%s]: free=%u filling=%u ready=%u proving=%u est=%.2fGiB",
                 event, c.slots[SLOT_FREE], c.slots[SLOT_FILLING],
                 c.slots[SLOT_READY], c.slots[SLOT_PROVING],
                 (double)busy / (1024.0 * 1024.0 * 1024.0));
    if (n < 0 || (size_t)n >= len)
        return -ENOSPC;
    return 0;
}

void pool_trace_buffers(const struct pool *pool, int on, const char *who, uint32_t incarnation,
                        const char *event)
{
    char line[160];
    if (on && pool_format_buffers(pool, event, line, sizeof(line)) == 0)
        fprintf(stderr, "%s[%u]: %s\n", who, incarnation, line);
}
