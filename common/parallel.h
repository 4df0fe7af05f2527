/*
 * parallel.h — a minimal fork-join loop over an index range with pthreads.
 *
 * Chunks of the range are handed out dynamically (an atomic counter), so
 * uneven work balances itself. The calling thread works too. The other
 * threads come from a pool started on first use and kept parked between
 * loops (see parallel.c).
 */
#ifndef SLOTPROVE_PARALLEL_H
#define SLOTPROVE_PARALLEL_H

#include <stddef.h>

typedef void (*parallel_fn)(void *ctx, size_t begin, size_t end);

/* Calls fn over [0, n) in chunks of `grain` items on up to nthreads threads
 * (0 = parallel_threads()). Runs inline when one chunk covers everything or a
 * thread cannot be created. */
void parallel_for(size_t n, size_t grain, unsigned nthreads, parallel_fn fn, void *ctx);

/* Worker threads to use: $SLOTPROVE_THREADS if set (1..1024), else the
 * number of online CPUs. */
unsigned parallel_threads(void);

#endif
