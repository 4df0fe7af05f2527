/* ring_types.h - the ticket rings' cells and cursors in the control memfd
 * (pool.h places them; ring.h has the protocol and the meaning of seq).
 *
 * A header without a .c: pool.c lays the rings out and initialises them
 * (ring_init_cells, before the pool is shared), ring.c runs the protocol,
 * and neither includes the other's header.
 */
#ifndef SHM_RING_TYPES_H
#define SHM_RING_TYPES_H

#include <stdatomic.h>
#include <stdint.h>

#define RING_CACHELINE 64

struct ring_cell {
    _Atomic uint64_t seq;
    /* Written only by the cell's claimant, read only after an acquire of
     * seq == pos + 1: plain fields, ordered by seq. */
    uint32_t slot;
    uint32_t gen;
    uint64_t publish_seq;
    uint64_t pad;
};
_Static_assert(sizeof(struct ring_cell) == 32, "ring_cell is 32 bytes");

/* One ring's cursors, on separate lines so the consumer's head stores do not
 * bounce the line producers CAS on. */
struct ring_cursor {
    _Alignas(RING_CACHELINE) _Atomic uint64_t head; /* consumer only */
    _Alignas(RING_CACHELINE) _Atomic uint64_t tail; /* producers CAS */
};

/* One ring's initial state: every cell empty for lap 0 (seq == its
 * position), head == tail == 0. Only before the pool is shared. */
static inline void ring_init_cells(struct ring_cell *cells, struct ring_cursor *cur, uint64_t cap)
{
    for (uint64_t i = 0; i < cap; i++)
        atomic_store_explicit(&cells[i].seq, i, memory_order_relaxed);
    atomic_store_explicit(&cur->head, 0, memory_order_relaxed);
    atomic_store_explicit(&cur->tail, 0, memory_order_relaxed);
}

#endif
