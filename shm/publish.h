/* publish.h - the two slot transitions that also carry a ticket.
 *
 * slot.c holds the pure state-word transitions, ring.c the ticket ring;
 * neither calls the other. Publishing and reclaiming need both (the
 * transition, then a ticket on the ring the caller names, then a wake),
 * so they are composed here, above both.
 */
#ifndef SHM_PUBLISH_H
#define SHM_PUBLISH_H

#include "slot.h"

/* FILLING(owner, gen) -> READY(0, gen) (slot_make_ready), then a ticket on
 * ring r (the consuming gpud's, ring.h) and a bump/wake of ready_seq. The
 * ticket is a hint: if the ring refuses it the slot is still READY and
 * found by pool_oldest_ready (pool_scan.h), so the result is 0 either way.
 * Returns 0, -ESTALE or -EINVAL as slot_make_ready, or -EINVAL (nothing
 * done) when r >= nrings. */
int slot_publish(struct pool *pool, uint32_t r, uint32_t slot, uint32_t gen, uint32_t owner);

/* slot_reclaim_states, then a fresh ticket (original publish_seq) on ring r
 * for every slot that went PROVING -> READY, then a bump/wake of ready_seq.
 * rep may be NULL. Returns 0, or -EINVAL (nothing done) for a bad dead or
 * r >= nrings. */
int slot_reclaim_owner(struct pool *pool, uint32_t r, uint32_t dead, struct reclaim_report *rep);

#endif
