/* pool.h - the shared slot pool: two sealed memfds and their layout
 * (pool_create, pool_attach, pool_detach, pool_payload, the wake words).
 *
 * Control memfd (read-write in every process):
 *   offset 0                 struct pool_header (2 cache lines, below)
 *   hdr->cursors_off         nrings x struct ring_cursor (head, tail)
 *   hdr->ring_off            nrings x ring_cap x struct ring_cell (32 B each)  ring.h
 *   hdr->slots_off           nslots x struct slot_desc (128 B each)   slot.h
 * One ticket ring per consumer (gpud i consumes ring i); the ring
 * operations (ring.h, publish.h) take the ring's index as an argument.
 *   size hdr->ctl_bytes      rounded up to the page size
 * Payload memfd (PROT_READ in gpud, read-write in synthd):
 *   slot i occupies [i * slot_bytes, (i + 1) * slot_bytes), slot_bytes a
 *   multiple of the page size.  The supervisor, as the creator, maps the
 *   payloads read-write to allocate and prefault them (pool_create) and
 *   keeps that mapping, but never reads or writes a slot's contents.
 *
 * Both memfds are sealed against shrink/grow (so a mapping can never SIGBUS
 * because someone truncated the file) and fully allocated by the creator.
 * Everything mutable in the control region is an atomic or is protected by
 * the slot state word / the per-slot seqlock; the rest is written once by the
 * creator before the fds are handed out.
 */
#ifndef SHM_POOL_H
#define SHM_POOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define POOL_MAGIC      0x4c4f4f5054534c53ULL /* "SLSTPOOL" little-endian */
#define POOL_VERSION    2u
#define POOL_MAX_SLOTS  256u   /* bounds struct reclaim_report */
#define POOL_MAX_RINGS  16u    /* one per gpud */
#define POOL_CACHELINE  64

struct slot_desc;   /* slot_types.h */
struct ring_cell;   /* ring_types.h */
struct ring_cursor;

struct pool_header {
    /* Line 0: immutable after pool_create. */
    _Alignas(POOL_CACHELINE) uint64_t magic;
    uint32_t version;
    uint32_t nslots;
    uint64_t slot_bytes;      /* per-slot payload bytes, page multiple */
    uint32_t ring_cap;        /* power of two >= 2 * nslots */
    uint32_t page_size;       /* page size the creator rounded to */
    uint64_t ctl_bytes;       /* size of the control memfd */
    uint64_t payload_bytes;   /* size of the payload memfd */
    uint64_t ring_off;        /* byte offset of the ring in the control fd */
    uint64_t slots_off;       /* byte offset of the slot table */

    /* Line 1: wakeup words and global counters. */
    _Alignas(POOL_CACHELINE) _Atomic uint32_t free_seq; /* +1 on every ->FREE */
    _Atomic uint32_t ready_seq;        /* +1 on every ->READY (doorbell word) */
    _Atomic uint32_t claim_hint;       /* rotating start index for claims */
    uint32_t nrings;                   /* immutable: ticket rings (1..POOL_MAX_RINGS) */
    _Atomic uint64_t publish_counter;  /* next publish_seq (starts at 1) */
    uint64_t cursors_off;              /* immutable: byte offset of the ring cursors */
    uint32_t lazy;                     /* immutable: 1 when the payload's pages are
                                        * allocated on first touch (pool_create_lazy) */
};

/* A process's view of the pool.  All pointers point into its own mappings. */
struct pool {
    int ctl_fd, payload_fd;        /* owned: closed by pool_detach */
    struct pool_header *hdr;
    struct slot_desc *slots;
    struct ring_cell *rings;       /* ring 0's cells; ring r at r * ring_cap */
    struct ring_cursor *cursors;   /* nrings of them */
    uint32_t nrings;
    uint8_t *payload;
    uint32_t nslots;
    uint64_t slot_bytes;
    uint32_t ring_mask;            /* ring_cap - 1 */
    uint64_t ctl_bytes, payload_bytes;
    int payload_prot;
};

/* Create a pool of nslots (1..POOL_MAX_SLOTS) slots of slot_bytes (> 0,
 * rounded up to the page size) each, in two fresh sealed CLOEXEC memfds,
 * mapped read-write.  All memory is allocated and prefaulted here, so a
 * shortage fails now rather than as SIGBUS later.
 * Returns 0, -EINVAL (bad sizes / NULL), -ENOMEM or -ENOSPC (no memory),
 * or another -errno from memfd_create/ftruncate/fcntl/mmap.
 * On failure *pool is left detached (fds -1, pointers NULL). */
int pool_create(struct pool *pool, uint32_t nslots, uint64_t slot_bytes);

/* pool_create with nrings (1..POOL_MAX_RINGS) ticket rings, one per gpud. */
int pool_create_rings(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings);

/* pool_create_rings, but the payload's pages are neither allocated nor
 * prefaulted: each is allocated when first written (and attachers do not
 * populate their views), so memory grows with the slot bytes jobs use. For
 * `serve` with no key to size slots by: a short key touches a few pages of
 * each slot. The price: a shortage shows as a fault (SIGBUS or the OOM
 * killer) in the writer instead of an error here. */
int pool_create_lazy(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings);

/* Map an existing pool from its two fds (e.g. inherited over exec).  The fds
 * are duplicated (CLOEXEC), so the caller keeps ownership of its own.
 * payload_prot is PROT_READ (gpud) or PROT_READ|PROT_WRITE (synthd).
 * Checks magic, version, the derived layout, both files' sizes (fstat) and
 * seals.  Returns 0, -EINVAL (not a matching pool / bad prot), -EBADF, or
 * another -errno from fstat/fcntl/mmap.  On failure *pool is detached. */
int pool_attach(struct pool *pool, int ctl_fd, int payload_fd,
                int payload_prot);

/* Unmap and close everything.  Idempotent, and safe on a pool that
 * pool_create/pool_attach left detached after failing (fds -1); not on an
 * uninitialised or all-zero struct (fd 0 would be closed).  Never touches slot states (see slot_reclaim_owner). */
void pool_detach(struct pool *pool);

/* Start of slot's payload (slot_bytes long), or NULL if slot >= nslots. */
void *pool_payload(const struct pool *pool, uint32_t slot);

/* Current futex words.  Read them BEFORE scanning the table and wait on the
 * value read, so a transition between scan and wait is never missed. */
uint32_t pool_free_seq(const struct pool *pool);
uint32_t pool_ready_seq(const struct pool *pool);

#endif
