/* publish.c - transition + ticket + wake (see publish.h). */
#include "publish.h"

#include "futex.h"
#include "ring.h"

#include <errno.h>
#include <stddef.h>

int slot_publish(struct pool *pool, uint32_t r, uint32_t slot, uint32_t gen, uint32_t owner)
{
    uint64_t seq;
    int rc;

    if (pool == NULL || r >= pool->nrings)
        return -EINVAL;
    rc = slot_make_ready(pool, slot, gen, owner, &seq);
    if (rc < 0)
        return rc;
    /* The ticket only orders; if the ring refuses it the slot is READY in
     * the table anyway and pool_oldest_ready finds it. */
    (void)ring_push(pool, r, slot, gen, seq);
    shm_futex_bump_wake(&pool->hdr->ready_seq);
    return 0;
}

int slot_reclaim_owner(struct pool *pool, uint32_t r, uint32_t dead, struct reclaim_report *rep)
{
    struct reclaim_report local; /* 12 KiB on the stack, when the caller wants no report */
    struct reclaim_report *rp = rep != NULL ? rep : &local;
    int rc;

    if (pool == NULL || r >= pool->nrings)
        return -EINVAL;
    rc = slot_reclaim_states(pool, dead, rp);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < rp->n_readied; i++)
        (void)ring_push(pool, r, rp->readied[i].slot, rp->readied[i].gen, rp->readied[i].publish_seq);
    shm_futex_bump_wake(&pool->hdr->ready_seq);
    return 0;
}
