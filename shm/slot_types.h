/* slot_types.h - the slot table's shared types: the state word's layout
 * and the 128-byte slot descriptor in the control memfd (pool.h places the
 * table; slot.h has the bit layout, the transitions and their rules).
 *
 * A header without a .c: pool.c (which lays the table out) and slot.c
 * (which changes it) both need these types, and neither may include the
 * other's header.
 */
#ifndef SHM_SLOT_TYPES_H
#define SHM_SLOT_TYPES_H

#include <stdatomic.h>
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

#endif
