/*
 * witness_read.h — a partition's witness read into its slot on all threads.
 *
 * The values section is split into chunks of SYNTH_READ_CHUNK values; each
 * thread preads its chunks straight into the slot and checks every value is
 * below r (wtns_read), so at 2^24 the 512 MiB copy out of the page cache and
 * the range check run on every core instead of one.
 */
#ifndef SLOTPROVE_WITNESS_READ_H
#define SLOTPROVE_WITNESS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "wtns.h"

#define SYNTH_READ_CHUNK (1u << 16) /* values: 2 MiB */

/* preads all w->n_witness values (32 bytes each, standard form) from fd into
 * dst on up to nthreads threads (0 = all CPUs). The same errors as wtns_read;
 * when several chunks fail, the one with the lowest index is reported, so
 * the message names the first bad value as a single read would. */
int synth_read_witness(const struct wtns *w, int fd, void *dst, unsigned nthreads,
                       struct sp_err *e);

/*
 * The witness's private copy (issue 19, fifth pass). The slot is shmem,
 * mapped with 4 KiB pages where shmem_enabled is never (most hosts), and
 * synth_ab reads w[signal] at random: a TLB miss and a page walk nearly
 * every term once the witness passes the TLB's reach. A copy in private
 * anonymous memory with MADV_HUGEPAGE (2 MiB pages, where
 * /sys/kernel/mm/transparent_hugepage/enabled is madvise or always) is
 * gathered from instead; each chunk is copied by the thread that read it,
 * right after its range check, while it is still in cache. Only for
 * witnesses of at least min_bytes (SYNTH_WCOPY_MIN_BYTES by default) and
 * only while THP is not "never"; otherwise the slot is gathered from.
 *
 * Memory: at most the witness's bytes rounded up to 2 MiB per synthd, while
 * a partition is synthesized (mapped by the read, unmapped by
 * synth_wcopy_done);
 * the group's memory bound counts it among synthd's scratch (README.md,
 * "Memory bound"; synth_wcopy_bytes).
 */
#define SYNTH_WCOPY_MIN_BYTES (64ull << 20) /* level at 32 MiB (2^20), ~5-10% of a, b at 128 MiB (2^22) */
/* Defined where synth_read_witness_copy exists: tests/bench_synth.c builds
 * against older trees too. */
#define SYNTH_WCOPY 1

struct synth_wcopy {
    void *p;          /* the copy's mapping, 2 MiB aligned, or NULL */
    size_t bytes;     /* its size, a multiple of 2 MiB */
    size_t min_bytes; /* smallest witness copied; 0 copies every witness */
    int off;          /* 1: never copy (THP "never", or asked) */
};

/* min_bytes as above; SYNTH_WCOPY_MIN_BYTES for the default. Reads the THP
 * setting once. */
void synth_wcopy_init(struct synth_wcopy *c, size_t min_bytes);

/* The bytes a copy of an n_vars witness takes (0 when it is not copied):
 * what the memory bound counts per synthd. */
size_t synth_wcopy_bytes(const struct synth_wcopy *c, uint64_t n_vars);

/* synth_read_witness into dst, and into c's copy where it applies; *gather
 * is set to the copy or to dst: the witness synth_ab reads. c NULL: no copy.
 * A failure to map the copy is not an error (dst is gathered from). */
int synth_read_witness_copy(const struct wtns *w, int fd, void *dst, struct synth_wcopy *c,
                            const void **gather, unsigned nthreads, struct sp_err *e);

/* After synth_ab (and when done with c): unmaps the copy, if any (c may be NULL).
 * It is mapped afresh for each partition: keeping it between partitions
 * of one size saved no time, on the dev box nor on the H200 host at 2^24
 * (6.03 against 6.05 Mcons/s/core). */
void synth_wcopy_done(struct synth_wcopy *c);

#endif
