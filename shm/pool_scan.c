/* pool_scan.c - whole-table scans (see pool_scan.h). */
#include "pool_scan.h"
#include "log_stamp.h"

#include "slot.h"

#include <errno.h>
#include <stdio.h>

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
        diag(LOG_NOTE, "%s[%u]: %s", who, incarnation, line);
}
