/* ring.h - bounded lock-free MPSC ticket ring in the control memfd.
 *
 * Producers (synthd publishing, the supervisor re-queuing) push tickets
 * {slot, gen, publish_seq}; the single consumer (gpud) pops them in order.
 * The ring only ORDERS work: the slot table decides.  A ticket may be stale
 * (slot_take then fails with -ESTALE: drop it) or missing (a producer died or
 * was skipped: the slot is READY anyway and pool_oldest_ready, pool_scan.h,
 * finds it).
 *
 * Vyukov-style bounded queue: positions are 64-bit counters (head, tail in
 * struct ring_cursor, ring_types.h); cell = ring[pos & mask]; each cell has a sequence word
 *   seq == pos            cell empty, position pos may be reserved
 *   seq == BUSY|pos       reserved and claimed by the producer of pos
 *   seq == pos + 1        ticket for pos published
 *   seq == pos + cap      consumed; empty for the next lap
 *   seq == DEAD|x         consumer skipped position x while its producer held
 *                         the cell (BUSY): the cell is retired until that
 *                         producer is provably done with it
 *   seq == DEAD|DONE|x    that producer has finished writing; the consumer
 *                         recycles the cell on its next visit
 * In DEAD/DONE cells x is the newest position for which the cell was passed
 * over (producers retag it as they step past; see ring.c).
 *
 * Why a late publish into a skipped cell cannot corrupt a later ticket: a
 * producer may write ticket fields only after it won the claim CAS
 * (seq: pos -> BUSY|pos), and it publishes with a CAS (BUSY|pos -> pos+1).
 * ring_skip_hole turns a reserved-but-unclaimed cell into pos+cap (the late
 * claim CAS then fails and nothing is written), and a claimed one into
 * DEAD|pos (the late publish CAS fails; the producer marks it DONE after its
 * last write).  A DEAD cell is never handed to another producer until it is
 * DONE, so the only writer of a cell's fields is always its one claimant.
 * A producer that dies holding a claim leaves the cell DEAD for good: each
 * lap then costs one position, which both sides step over without waiting.
 */
#ifndef SHM_RING_H
#define SHM_RING_H

#include "pool.h"
#include "ring_types.h"

#include <stdatomic.h>
#include <stdint.h>

#define RING_BUSY  (1ULL << 63)
#define RING_DEAD  (1ULL << 62)
#define RING_DONE  (1ULL << 61)
#define RING_FLAGS (RING_BUSY | RING_DEAD | RING_DONE)
#define RING_POS   (~RING_FLAGS)

struct ring_ticket {
    uint32_t slot;
    uint32_t gen;
    uint64_t publish_seq;
};

/* Every operation names its ring: r, 0 .. pool->nrings-1 (gpud i consumes
 * ring i). An r out of range or an unmapped pool is -EINVAL. */

/* Producer: reserve and claim the next position.  Returns 0 with *pos set,
 * -EAGAIN if the ring is full (next cell not yet consumed), -EINVAL. */
int ring_reserve(struct pool *pool, uint32_t r, uint64_t *pos);

/* Producer: write the ticket into the claimed cell and publish it (release).
 * Returns 0, or -ESTALE if the consumer skipped the position meanwhile (the
 * ticket is dropped; the cell is handed back for recycling). */
int ring_commit(struct pool *pool, uint32_t r, uint64_t pos, uint32_t slot, uint32_t gen,
                uint64_t publish_seq);

/* ring_reserve + ring_commit.  Returns 0, -EAGAIN (full), -ESTALE. */
int ring_push(struct pool *pool, uint32_t r, uint32_t slot, uint32_t gen, uint64_t publish_seq);

/* Consumer (one at a time): next ticket in FIFO order.  Returns 0, or
 * -EAGAIN when the ring is empty or the head position is reserved but not
 * yet published (see ring_pending / ring_skip_hole).  Positions whose
 * producers stepped over a retired cell are passed silently. */
int ring_pop(struct pool *pool, uint32_t r, struct ring_ticket *out);

/* Positions reserved but not yet popped (tail - head): > 0 while ring_pop
 * says -EAGAIN means the head is a hole in progress. */
uint64_t ring_pending(const struct pool *pool, uint32_t r);

/* Consumer, after deciding the head's producer is dead or too slow: step
 * past the unpublished head position (its ticket, if it ever comes, is
 * dropped).  Returns 0 if a hole was skipped, -EAGAIN if there is nothing
 * to skip (ring empty, or the head got published: ring_pop it). */
int ring_skip_hole(struct pool *pool, uint32_t r);

#endif
