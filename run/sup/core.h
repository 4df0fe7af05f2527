/*
 * core.h — the supervisor core shared by `slotprove serve` (many jobs, a
 * socket) and `slotprove prove` (one job, no socket).
 *
 * Like PostgreSQL's postmaster, the core keeps its own copy of everything it
 * must not lose — jobs, partitions, which child does what — and never
 * trusts or dereferences slot payloads (it reads slot headers only).
 * Completion is decided by the dispatcher (dispatch.h), not by the slot
 * table: slots govern memory only. The core owns the pool, the children
 * (kids.h), the key cache (keys.h), the job table (jobs.h) and the
 * dispatcher, and routes every child message and death into them:
 *
 *   child messages ─┐                 ┌─► dispatcher (partition states)
 *   child deaths ───┼─► core.c ───────┼─► job table (ends, results)
 *   submit/cancel ──┘  (this file)    └─► hooks (socket answers, prove's
 *                                          progress lines)
 *
 * Its files: core_state.h (struct core), submit.c (jobs in), job_end.c
 * (jobs out), kid_keys.c (keys in the children), pipeline.c (figures),
 * loop.c (one turn of the event loop over its descriptors and the caller's).
 *
 * The caller runs the loop (loop.h), or by hand: core_pollfds adds the
 * children's descriptors to its poll set, core_on_fd handles one that is ready, core_tick runs
 * respawns, RSS checks, dispatch and purging.
 */
#ifndef SLOTPROVE_CORE_H
#define SLOTPROVE_CORE_H

#include <poll.h>
#include <stdint.h>

#include "core_state.h"
#include "err.h"

/* An empty core: no pool, no children. */
void core_init(struct core *c);

/* Creates the pool (o.slots × o.slot_bytes, prefaulted, one ticket ring
 * per gpud), a doorbell per gpud and the children. 0 or -errno with the reason in e. */
int core_start(struct core *c, struct sp_err *e);

/* Adds the children's control sockets and pidfds to pf (room for max);
 * returns how many. */
int core_pollfds(struct core *c, struct pollfd *pf, int max);

/* Handles fd (one core_pollfds added) that poll reported ready. */
void core_on_fd(struct core *c, int fd);

/* Respawns, RSS checks, dispatch of queued partitions to idle synthds,
 * purging of old results. Call after every poll. */
void core_tick(struct core *c, uint64_t now);

/* 0 if jobs can be proved now, else -EAGAIN with the reason in e (a role
 * is stopped: exit code 2). */
int core_usable(const struct core *c, struct sp_err *e);

/* Stops the children (SHUTDOWN, reap) and releases the pool. */
void core_shutdown(struct core *c);


#endif
