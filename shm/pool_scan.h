/* pool_scan.h - read-only scans of the whole slot table: the oldest READY
 * slot (the gpud's fallback when its ticket ring has nothing), and the
 * per-state counts behind `status` and --trace-buffers.
 *
 * Each scan reads every slot's word once (acquire); transitions may run
 * meanwhile, so a result is a snapshot that may already be out of date.
 */
#ifndef SHM_POOL_SCAN_H
#define SHM_POOL_SCAN_H

#include "pool.h"
#include "slot_types.h"

#include <stddef.h>
#include <stdint.h>

/* The READY slot with the smallest publish_seq, and its generation: the
 * consumer's fallback when its ring has nothing (a ticket dropped or
 * skipped leaves its slot READY here). 0, -EAGAIN (no READY slot), or
 * -EINVAL (NULL arguments, pool not mapped). */
int pool_oldest_ready(const struct pool *pool, uint32_t *slot, uint32_t *gen);

/* Counts derived from the table (each word read once; the total is always
 * nslots).  bytes[s] = slots[s] * slot_bytes. */
struct pool_counts {
    uint32_t slots[SLOT_NSTATES];
    uint64_t bytes[SLOT_NSTATES];
    uint32_t invalid;         /* words with an unknown state (corruption) */
};
void pool_counts(const struct pool *pool, struct pool_counts *out);

/* Writes exactly "BUFFERS[<event>]: free=N filling=N ready=N proving=N
 * est=X.XXGiB" (est = non-FREE slots * slot_bytes / 2^30) into buf.
 * Returns 0, -EINVAL (NULL), -ENOSPC (did not fit; buf holds a truncated,
 * terminated string when len > 0). */
int pool_format_buffers(const struct pool *pool, const char *event, char *buf, size_t len);

/* --trace-buffers: when on (the caller's switch: the supervisor's
 * --trace-buffers, which its children get as the argument --trace-buffers 1),
 * prints "who[incarnation]: BUFFERS[event]: …" to stderr; otherwise does
 * nothing. */
void pool_trace_buffers(const struct pool *pool, int on, const char *who, uint32_t incarnation,
                        const char *event);

#endif
