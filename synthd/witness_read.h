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

#include "err.h"
#include "wtns.h"

#define SYNTH_READ_CHUNK (1u << 16) /* values: 2 MiB */

/* preads all w->n_witness values (32 bytes each, standard form) from fd into
 * dst on up to nthreads threads (0 = all CPUs). The same errors as wtns_read;
 * when several chunks fail, the one with the lowest index is reported, so
 * the message names the first bad value as a single read would. */
int synth_read_witness(const struct wtns *w, int fd, void *dst, unsigned nthreads,
                       struct sp_err *e);

#endif
