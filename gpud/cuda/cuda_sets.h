/*
 * cuda_sets.h — the CUDA backend's device buffer sets, one per worker
 * (CUDA_SETS): a job's inputs a, b (kept for a re-prove on the
 * fallback), c = a∘b (lean sets; a fast set forms it in the scratch),
 * scratch, the LDE outputs and the witness.
 *
 *   cuda_set_get(p)            a free set (waits for one).
 *   cuda_set_put(p, s)         gives it back.
 *   cuda_set_reserve(p, s, zk, lean, k, e)
 *                              grows s to zk's buffers (cuda_set_sizes of
 *                              cuda_budget.h),
 *                              evicting idle keys other than k
 *                              while memory is short; -ENOMEM or the CUDA
 *                              error.
 *   cuda_set_release(s)        frees s's device memory.
 *   cuda_sets_limit(p, n)      at most n sets (1..CUDA_SETS) in use from now
 *                              on (the device budget holds n workers' buffers);
 *                              idle sets beyond n are freed now, busy ones
 *                              when put back.
 */
#ifndef SLOTPROVE_CUDA_SETS_H
#define SLOTPROVE_CUDA_SETS_H

#include "cuda_priv.h"
#include "err.h"

struct cuda_set *cuda_set_get(struct cuda_priv *p);
void cuda_set_put(struct cuda_priv *p, struct cuda_set *s);
int cuda_set_reserve(struct cuda_priv *p, struct cuda_set *s, const struct zkey *zk, int lean,
                     const struct cuda_key *k, struct sp_err *e);
void cuda_set_release(struct cuda_set *s);
void cuda_sets_limit(struct cuda_priv *p, unsigned n);

#endif
