/* ring.c - MPSC ticket ring (protocol and cell states: see ring.h).
 *
 * Memory ordering: a ticket's fields are plain stores by the cell's claimant,
 * published by the CAS BUSY|pos -> pos+1 (release) and read by the consumer
 * after an acquire load sees pos+1.  The consumer hands the cell to the next
 * lap with a release store of pos+cap, which the next producer acquires
 * before its own writes, so reads and writes of one cell never overlap.
 */
#include "ring.h"

#include "slot.h"

#include <errno.h>
#include <stddef.h>

static struct ring_cell *cell_at(const struct pool *pool, uint64_t pos)
{
    return &pool->ring[pos & pool->ring_mask];
}

static uint64_t ring_cap(const struct pool *pool)
{
    return (uint64_t)pool->ring_mask + 1;
}

void ring_init(struct pool *pool)
{
    for (uint64_t i = 0; i < ring_cap(pool); i++)
        atomic_store_explicit(&pool->ring[i].seq, i, memory_order_relaxed);
    atomic_store_explicit(&pool->cur->head, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->cur->tail, 0, memory_order_relaxed);
}

int ring_reserve(struct pool *pool, uint64_t *pos)
{
    _Atomic uint64_t *tail;
    uint64_t passed = 0;

    if (pool == NULL || pool->hdr == NULL || pos == NULL)
        return -EINVAL;
    tail = &pool->cur->tail;
    for (;;) {
        uint64_t t = atomic_load_explicit(tail, memory_order_acquire);
        struct ring_cell *c = cell_at(pool, t);
        uint64_t v = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t x = v & RING_POS;

        if (v & RING_DEAD) {
            /* Retired cell: step over position t.  First retag the cell with
             * t (CAS, so it cannot race the consumer's recycling of a DONE
             * cell): the consumer then knows t was passed over, not pending.
             * Then move the tail past t; anyone seeing tag t may help. */
            if (x < t) {
                atomic_compare_exchange_strong(&c->seq, &v, (v & RING_FLAGS) | t);
            } else if (x == t) {
                if (++passed > ring_cap(pool))
                    return -EAGAIN;        /* every cell retired */
                atomic_compare_exchange_strong(tail, &t, t + 1);
            }
            continue;                      /* x > t: stale tail, reload */
        }
        if (v == t) {
            /* Free for this lap: reserve t by moving the tail (Vyukov's CAS,
             * not fetch-add, so a full ring leaves no reserved hole). */
            if (!atomic_compare_exchange_weak(tail, &t, t + 1))
                continue;
            /* Claim the cell.  This CAS is what makes ring_skip_hole safe:
             * if the consumer already skipped t (seq is now t+cap) it fails
             * and we never write into a cell a later lap may own. */
            uint64_t e = t;
            if (atomic_compare_exchange_strong(&c->seq, &e, RING_BUSY | t)) {
                *pos = t;
                return 0;
            }
            continue;                      /* skipped meanwhile: try again */
        }
        if (x < t)
            return -EAGAIN;  /* last lap's ticket not consumed yet: full */
        /* x >= t with another value: someone else took t; reload. */
    }
}

int ring_commit(struct pool *pool, uint64_t pos, uint32_t slot, uint32_t gen,
                uint64_t publish_seq)
{
    struct ring_cell *c;
    uint64_t e;

    if (pool == NULL || pool->ring == NULL)
        return -EINVAL;
    c = cell_at(pool, pos);
    /* We hold the claim (BUSY|pos, or DEAD|x if skipped): sole writer. */
    c->slot = slot;
    c->gen = gen;
    c->publish_seq = publish_seq;
    e = RING_BUSY | pos;
    if (atomic_compare_exchange_strong_explicit(&c->seq, &e, pos + 1,
            memory_order_release, memory_order_relaxed))
        return 0;
    /* The consumer skipped pos and retired the cell (DEAD, tag possibly
     * advanced by producers stepping over it).  Our writes above are the
     * last this cell will see from us: mark it DONE (release) so the
     * consumer may recycle it.  Only we ever set DONE on a DEAD cell. */
    e = atomic_load_explicit(&c->seq, memory_order_relaxed);
    while ((e & RING_DEAD) && !(e & RING_DONE) &&
           !atomic_compare_exchange_weak_explicit(&c->seq, &e, e | RING_DONE,
                memory_order_release, memory_order_relaxed))
        ;
    return -ESTALE;
}

int ring_push(struct pool *pool, uint32_t slot, uint32_t gen, uint64_t publish_seq)
{
    uint64_t pos;
    int rc = ring_reserve(pool, &pos);

    if (rc < 0)
        return rc;
    return ring_commit(pool, pos, slot, gen, publish_seq);
}

int ring_pop(struct pool *pool, struct ring_ticket *out)
{

    if (pool == NULL || pool->hdr == NULL || out == NULL)
        return -EINVAL;
    for (;;) {
        /* Only the consumer writes head; relaxed read of our own value. */
        uint64_t h = atomic_load_explicit(&pool->cur->head, memory_order_relaxed);
        struct ring_cell *c = cell_at(pool, h);
        uint64_t v = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t x = v & RING_POS;

        if (v == h + 1) {
            out->slot = c->slot;
            out->gen = c->gen;
            out->publish_seq = c->publish_seq;
            /* Cell first, then head: a consumer dying in between leaves
             * seq == h+cap at head h, which the next one steps over. */
            atomic_store_explicit(&c->seq, h + ring_cap(pool), memory_order_release);
            atomic_store_explicit(&pool->cur->head, h + 1, memory_order_release);
            return 0;
        }
        if (v & RING_DEAD) {
            if (x < h)
                return -EAGAIN;  /* no producer has reached h yet */
            /* h was passed over.  Its producer may have died between retag
             * and tail CAS: help, so head never overtakes tail. */
            uint64_t t = h;
            atomic_compare_exchange_strong(&pool->cur->tail, &t, h + 1);
            if ((v & RING_DONE) && x == h) {
                /* Writer finished: hand the cell to lap h+cap.  If a producer
                 * retagged it first the CAS fails and it stays retired one
                 * more lap. */
                atomic_compare_exchange_strong(&c->seq, &v, h + ring_cap(pool));
            }
            atomic_store_explicit(&pool->cur->head, h + 1, memory_order_release);
            continue;
        }
        if (x >= h + ring_cap(pool)) {
            /* A previous consumer finished h but died before moving head. */
            atomic_store_explicit(&pool->cur->head, h + 1, memory_order_release);
            continue;
        }
        return -EAGAIN;  /* empty, or reserved/claimed but unpublished */
    }
}

uint64_t ring_pending(const struct pool *pool)
{
    uint64_t h, t;

    if (pool == NULL || pool->hdr == NULL)
        return 0;
    h = atomic_load_explicit(&pool->cur->head, memory_order_acquire);
    t = atomic_load_explicit(&pool->cur->tail, memory_order_acquire);
    return t > h ? t - h : 0;
}

int ring_skip_hole(struct pool *pool)
{

    if (pool == NULL || pool->hdr == NULL)
        return -EINVAL;
    for (;;) {
        uint64_t h = atomic_load_explicit(&pool->cur->head, memory_order_relaxed);
        uint64_t t = atomic_load_explicit(&pool->cur->tail, memory_order_acquire);
        struct ring_cell *c = cell_at(pool, h);
        uint64_t v = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t nv;

        if (t <= h)
            return -EAGAIN;                 /* nothing reserved */
        if (v == h)
            nv = h + ring_cap(pool);        /* unclaimed: its claim CAS fails */
        else if (v == (RING_BUSY | h))
            nv = RING_DEAD | h;             /* claimed: retire until DONE */
        else
            return -EAGAIN;                 /* published or passed: pop */
        /* CAS against the producer's claim/publish; on failure re-read
         * (it made progress, most likely published). */
        if (atomic_compare_exchange_strong(&c->seq, &v, nv)) {
            atomic_store_explicit(&pool->cur->head, h + 1, memory_order_release);
            return 0;
        }
    }
}

/* The table scan that backs the ring up (declared in ring.h): a ticket that
 * was dropped or skipped still leaves its slot READY here. */
int pool_oldest_ready(const struct pool *pool, uint32_t *slot, uint32_t *gen)
{
    uint64_t best_seq = 0, best_w = 0;
    uint32_t best = UINT32_MAX;

    if (pool == NULL || pool->slots == NULL || slot == NULL || gen == NULL)
        return -EINVAL;
    for (uint32_t s = 0; s < pool->nslots; s++) {
        struct slot_desc *d = &pool->slots[s];
        uint64_t w = atomic_load_explicit(&d->word, memory_order_acquire);
        uint64_t seq;

        if (slot_state_of(w) != SLOT_READY)
            continue;
        /* publish_seq was written before READY (release/acquire above);
         * nobody writes it while READY.  Re-reading the word shows the
         * value belongs to this same READY generation. */
        seq = __atomic_load_n(&d->publish_seq, __ATOMIC_RELAXED);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&d->word, memory_order_relaxed) != w)
            continue;
        if (best == UINT32_MAX || seq < best_seq) {
            best = s;
            best_seq = seq;
            best_w = w;
        }
    }
    if (best == UINT32_MAX)
        return -EAGAIN;
    *slot = best;
    *gen = slot_gen_of(best_w);
    return 0;
}
