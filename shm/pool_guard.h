/*
 * pool_guard.h — the supervisor's own copy of the pool's layout, and the
 * repair of a control page someone overwrote (issue 36.2).
 *
 * The control memfd is mapped read-write by every process of the group, so
 * a bug (or, before the witness sandbox, a hostile witness program: it could
 * open /proc/<pid>/fd/N) can overwrite it. Its first cache line is written
 * once by the creator; when it is torn, no replacement child can attach
 * ("cannot attach the slot pool: Invalid argument") and proving stops. So
 * the supervisor keeps a copy of those fields, as PostgreSQL's postmaster
 * keeps its own copy of child state rather than trusting shared memory, and
 * checks the page every second: torn layout fields are written back from
 * the copy, a ticket ring whose cursors or cells no run of the protocol can
 * produce starts again empty (the slot table, not the ring, decides what is
 * proved: ring.h), and a slot whose state word holds no state at all (outside
 * FREE..PROVING) is set FREE with its generation bumped, so a late CAS of
 * a holder fails instead of landing. Both are counted and logged as bugs.
 */
#ifndef SHM_POOL_GUARD_H
#define SHM_POOL_GUARD_H

#include <stdint.h>

#include "pool.h"

struct pool_guard {
    uint64_t magic;
    uint32_t version, nslots;
    uint64_t slot_bytes;
    uint32_t ring_cap, page_size;
    uint64_t ctl_bytes, payload_bytes, ring_off, slots_off, cursors_off;
    uint32_t nrings;
    uint32_t lazy;
};

/* Copies the pool's layout fields (right after pool_create). */
void pool_guard_init(struct pool_guard *g, const struct pool *p);

/* Compares the control page with the copy and repairs it: *fields gets the
 * number of layout fields written back and of rings reset, *slots the number of slot words
 * that held no valid state and were set FREE (generation + 1). Never
 * touches a payload. */
void pool_guard_check(const struct pool_guard *g, struct pool *p, unsigned *fields,
                      unsigned *slots);

#endif
