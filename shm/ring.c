/* ring.c - MPSC ticket ring (protocol and cell states: see ring.h).
 *
 * Memory ordering: a ticket's fields are plain stores by the cell's claimant,
 * published by the CAS BUSY|pos -> pos+1 (release) and read by the consumer
 * after an acquire load sees pos+1.  The consumer hands the cell to the next
 * lap with a release store of pos+cap, which the next producer acquires
 * before its own writes, so reads and writes of one cell never overlap.
 */
#include "ring.h"

#include <errno.h>
#include <stddef.h>

/* Ring r of the pool: its cells, cursors and capacity. */
struct view {
    struct ring_cell *cells;
    struct ring_cursor *cur;
    uint64_t cap;
};

/* -EINVAL when the pool is not mapped or r >= nrings. */
static int view_of(const struct pool *pool, uint32_t r, struct view *v)
{
    if (pool == NULL || pool->hdr == NULL || pool->rings == NULL || r >= pool->nrings)
        return -EINVAL;
    v->cap = (uint64_t)pool->ring_mask + 1;
    v->cells = pool->rings + (uint64_t)r * v->cap;
    v->cur = pool->cursors + r;
    return 0;
}

static struct ring_cell *cell_at(const struct view *v, uint64_t pos)
{
    return &v->cells[pos & (v->cap - 1)];
}

int ring_reserve(struct pool *pool, uint32_t r, uint64_t *pos)
{
    struct view rv;
    _Atomic uint64_t *tail;
    uint64_t passed = 0;

    if (view_of(pool, r, &rv) < 0 || pos == NULL)
        return -EINVAL;
    tail = &rv.cur->tail;
    for (;;) {
        uint64_t t = atomic_load_explicit(tail, memory_order_acquire);
        struct ring_cell *c = cell_at(&rv, t);
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
                if (++passed > rv.cap)
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

int ring_commit(struct pool *pool, uint32_t r, uint64_t pos, uint32_t slot, uint32_t gen,
                uint64_t publish_seq)
{
    struct view rv;
    struct ring_cell *c;
    uint64_t e;

    if (view_of(pool, r, &rv) < 0)
        return -EINVAL;
    c = cell_at(&rv, pos);
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

int ring_push(struct pool *pool, uint32_t r, uint32_t slot, uint32_t gen, uint64_t publish_seq)
{
    uint64_t pos;
    int rc = ring_reserve(pool, r, &pos);

    if (rc < 0)
        return rc;
    return ring_commit(pool, r, pos, slot, gen, publish_seq);
}

int ring_pop(struct pool *pool, uint32_t r, struct ring_ticket *out)
{
    struct view rv;

    if (view_of(pool, r, &rv) < 0 || out == NULL)
        return -EINVAL;
    for (;;) {
        /* Only the consumer writes head; relaxed read of our own value. */
        uint64_t h = atomic_load_explicit(&rv.cur->head, memory_order_relaxed);
        struct ring_cell *c = cell_at(&rv, h);
        uint64_t v = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t x = v & RING_POS;

        if (v == h + 1) {
            out->slot = c->slot;
            out->gen = c->gen;
            out->publish_seq = c->publish_seq;
            /* Cell first, then head: a consumer dying in between leaves
             * seq == h+cap at head h, which the next one steps over. */
            atomic_store_explicit(&c->seq, h + rv.cap, memory_order_release);
            atomic_store_explicit(&rv.cur->head, h + 1, memory_order_release);
            return 0;
        }
        if (v & RING_DEAD) {
            if (x < h)
                return -EAGAIN;  /* no producer has reached h yet */
            /* h was passed over.  Its producer may have died between retag
             * and tail CAS: help, so head never overtakes tail. */
            uint64_t t = h;
            atomic_compare_exchange_strong(&rv.cur->tail, &t, h + 1);
            if ((v & RING_DONE) && x == h) {
                /* Writer finished: hand the cell to lap h+cap.  If a producer
                 * retagged it first the CAS fails and it stays retired one
                 * more lap. */
                atomic_compare_exchange_strong(&c->seq, &v, h + rv.cap);
            }
            atomic_store_explicit(&rv.cur->head, h + 1, memory_order_release);
            continue;
        }
        if (x >= h + rv.cap) {
            /* A previous consumer finished h but died before moving head. */
            atomic_store_explicit(&rv.cur->head, h + 1, memory_order_release);
            continue;
        }
        return -EAGAIN;  /* empty, or reserved/claimed but unpublished */
    }
}

uint64_t ring_pending(const struct pool *pool, uint32_t r)
{
    struct view rv;
    uint64_t h, t;

    if (view_of(pool, r, &rv) < 0)
        return 0;
    h = atomic_load_explicit(&rv.cur->head, memory_order_acquire);
    t = atomic_load_explicit(&rv.cur->tail, memory_order_acquire);
    return t > h ? t - h : 0;
}

int ring_skip_hole(struct pool *pool, uint32_t r)
{
    struct view rv;

    if (view_of(pool, r, &rv) < 0)
        return -EINVAL;
    for (;;) {
        uint64_t h = atomic_load_explicit(&rv.cur->head, memory_order_relaxed);
        uint64_t t = atomic_load_explicit(&rv.cur->tail, memory_order_acquire);
        struct ring_cell *c = cell_at(&rv, h);
        uint64_t v = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t nv;

        if (t <= h)
            return -EAGAIN;                 /* nothing reserved */
        if (v == h)
            nv = h + rv.cap;        /* unclaimed: its claim CAS fails */
        else if (v == (RING_BUSY | h))
            nv = RING_DEAD | h;             /* claimed: retire until DONE */
        else
            return -EAGAIN;                 /* published or passed: pop */
        /* CAS against the producer's claim/publish; on failure re-read
         * (it made progress, most likely published). */
        if (atomic_compare_exchange_strong(&c->seq, &v, nv)) {
            atomic_store_explicit(&rv.cur->head, h + 1, memory_order_release);
            return 0;
        }
    }
}
