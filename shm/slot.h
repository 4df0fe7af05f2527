/* slot.h - per-slot state word, transitions, header seqlock, derived counts.
 *
 * Each slot has one 64-bit word, changed ONLY by compare-and-swap:
 *   bits  0..7   state  (SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_PROVING)
 *   bits  8..31  owner  (24-bit incarnation the supervisor gave a process;
 *                        0 = none; never a pid, so pid reuse cannot alias)
 *   bits 32..63  generation (+1 on every transition into FREE, so a handle
 *                        (slot, gen) of a previous use can never match again
 *                        within 2^32 reuses)
 *
 *   FREE(0,g) --claim--> FILLING(o,g+1) --publish--> READY(0,g+1)
 *   READY(0,g) --take--> PROVING(o,g) --release/invalidate--> FREE(0,g+1)
 *   FILLING(o,g) --abandon / reclaim(o dead)--> FREE(0,g+1)
 *   PROVING(o,g) --reclaim(o dead)--> READY(0,g)   (ticket re-pushed)
 *   READY|PROVING(g) --force_free--> FREE(0,g+1)
 *
 * The CAS on the word is the single point of truth: whoever wins it owns the
 * slot's payload and header until the next transition.  Transitions into
 * READY/FREE are release, transitions out acquire, so the payload written by
 * synthd happens-before gpud reads it, and gpud's reads happen-before the
 * next synthd overwrites it.  All transitions return 0, -ESTALE (the word
 * was not in the stated state/generation/owner) or -EINVAL (slot out of
 * range, owner 0 or > SLOT_OWNER_MAX, NULL arguments).
 */
#ifndef SHM_SLOT_H
#define SHM_SLOT_H

#include "pool.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum slot_state {
    SLOT_FREE = 0,
    SLOT_FILLING = 1,
    SLOT_READY = 2,
    SLOT_PROVING = 3,
    SLOT_NSTATES = 4
};

#define SLOT_OWNER_MAX 0xffffffu

/* Slot descriptor in the control memfd.  Header fields are written by the
 * slot's current holder under hdr_seq (a seqlock: odd while writing), and
 * accessed with relaxed atomics so concurrent seqlock readers are not data
 * races.  hdr_gen is the generation the owner's fields were written for; a
 * header whose hdr_gen differs from the word's generation is stale. */
struct slot_desc {
    _Alignas(128) _Atomic uint64_t word;
    _Atomic uint32_t hdr_seq;
    uint32_t hdr_gen;
    uint64_t job_id;
    uint32_t partition;
    uint32_t key_id;
    uint64_t domain_size;
    uint64_t n_vars;
    uint64_t payload_bytes;
    uint64_t publish_seq;
    uint64_t t_claim_ns, t_publish_ns, t_take_ns; /* CLOCK_MONOTONIC ns */
};
_Static_assert(sizeof(struct slot_desc) == 128, "slot_desc is 128 bytes");

/* A consistent copy of a slot header. */
struct slot_header {
    uint32_t gen;             /* generation the owner fields belong to */
    uint32_t partition;
    uint64_t job_id;
    uint32_t key_id;
    uint32_t pad;
    uint64_t domain_size;     /* elements */
    uint64_t n_vars;
    uint64_t payload_bytes;   /* bytes used in the slot's payload */
    uint64_t publish_seq;     /* 0 until published */
    uint64_t t_claim_ns, t_publish_ns, t_take_ns;
};

/* Word decoding. */
static inline uint32_t slot_state_of(uint64_t w) { return (uint32_t)(w & 0xff); }
static inline uint32_t slot_owner_of(uint64_t w) { return (uint32_t)(w >> 8) & SLOT_OWNER_MAX; }
static inline uint32_t slot_gen_of(uint64_t w) { return (uint32_t)(w >> 32); }
static inline uint64_t slot_word_make(uint32_t state, uint32_t owner, uint32_t gen)
{
    return (uint64_t)gen << 32 | (uint64_t)(owner & SLOT_OWNER_MAX) << 8 | (state & 0xff);
}
/* "FREE", "FILLING", "READY", "PROVING" or "INVALID". */
const char *slot_state_name(uint32_t state);

/* Current word of slot (acquire), or 0 if slot is out of range. */
uint64_t slot_word(const struct pool *pool, uint32_t slot);

/* FREE(g) -> FILLING(owner, g+1), trying slots from a rotating start index.
 * Outputs the slot index and its new generation; stamps t_claim_ns.
 * Returns 0, -EAGAIN (no FREE slot: wait with slot_wait_free), -EINVAL. */
int slot_claim(struct pool *pool, uint32_t owner, uint32_t *slot, uint32_t *gen);

/* FILLING(owner, gen) -> READY(0, gen).  Stamps publish_seq (global order,
 * returned in *publish_seq when not NULL) and t_publish_ns, then CASes with
 * release (payload + header visible to whoever takes it).  A pure
 * transition: pushing the ticket and waking consumers is the caller's
 * (slot_publish in publish.h does both). */
int slot_make_ready(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner,
                    uint64_t *publish_seq);

/* READY(gen) -> PROVING(owner, gen) (acquire: payload visible); stamps
 * t_take_ns. */
int slot_take(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner);

/* PROVING(owner, gen) -> FREE(0, gen+1); bumps free_seq and wakes all. */
int slot_release(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner);

/* Same transition as slot_release, for "gpud found the header invalid". */
int slot_invalidate(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner);

/* FILLING(owner, gen) -> FREE(0, gen+1) (synthd gave up mid-fill). */
int slot_abandon(struct pool *pool, uint32_t slot, uint32_t gen, uint32_t owner);

/* Supervisor: READY or PROVING(gen, any owner) -> FREE(0, gen+1), for a
 * partition already done.  The caller must know no live process still uses
 * the slot (a live gpud holding it PROVING would keep reading the payload). */
int slot_force_free(struct pool *pool, uint32_t slot, uint32_t gen);

/* What slot_reclaim_owner did with one slot.  job_id/partition come from the
 * header; hdr_valid is 0 when the dead owner never wrote a header for this
 * generation (or died in the middle of writing it): then job_id/partition
 * are 0 and the supervisor must fall back on what it assigned the process. */
struct reclaim_entry {
    uint32_t slot;
    uint32_t gen;             /* generation the slot had when reclaimed */
    uint64_t job_id;
    uint32_t partition;
    uint32_t hdr_valid;
    uint64_t publish_seq;     /* readied: the original publish order, for its ticket */
};
struct reclaim_report {
    uint32_t n_freed;         /* FILLING -> FREE: partition must be redone */
    uint32_t n_readied;       /* PROVING -> READY: will be proven again */
    struct reclaim_entry freed[POOL_MAX_SLOTS];
    struct reclaim_entry readied[POOL_MAX_SLOTS];
};

/* Supervisor, after reaping the process with incarnation dead (so nothing
 * it held can change under us): FILLING(dead) -> FREE(gen+1), PROVING(dead)
 * -> READY(0, gen), filling rep (which may be NULL); then bumps/wakes
 * free_seq.  Pure transitions: the readied slots' tickets are the caller's
 * (slot_reclaim_owner in publish.h pushes them and wakes ready_seq).
 * Returns 0 or -EINVAL (dead 0 or > SLOT_OWNER_MAX, NULL pool). */
int slot_reclaim_states(struct pool *pool, uint32_t dead, struct reclaim_report *rep);

/* Owner, while FILLING: publish the descriptive fields of *h (job_id,
 * partition, key_id, domain_size, n_vars, payload_bytes) into the slot
 * header, stamped with the slot's current generation.  The timestamps and
 * publish_seq in *h are ignored (the transitions own them).  No-op on a bad
 * slot index or NULL. */
void slot_write_header(struct pool *pool, uint32_t slot, const struct slot_header *h);

/* Consistent copy of slot's header (seqlock read: retries while a write is
 * in progress).  Returns 0, -EINVAL, or -EAGAIN if the header stayed
 * mid-write for ~2 ms of retries (writer died in it, or is descheduled). */
int slot_read_header(const struct pool *pool, uint32_t slot, struct slot_header *out);

/* Sleep until free_seq moves away from seen_free_seq (the value returned by
 * pool_free_seq() BEFORE the caller's failed slot_claim scan).  Returns 0
 * (rescan), -EAGAIN (already moved: rescan), -ETIMEDOUT, -EINTR. */
int slot_wait_free(struct pool *pool, uint32_t seen_free_seq, int timeout_ms);

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

/* --trace-buffers: when on (the child was started with --trace-buffers 1),
 * prints "who[incarnation]: BUFFERS[event]: …" to stderr; otherwise does
 * nothing. */
void pool_trace_buffers(const struct pool *pool, int on, const char *who, uint32_t incarnation,
                        const char *event);

#endif
