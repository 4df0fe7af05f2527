/*
 * cuda_budget.h — how a key is proved within the device memory budget
 * (--gpu-mem; the ledger is gpud/cuda/kernels/gpu_mem.h).
 *
 * A key needs on the device, in bytes (n = domain size, v = variables,
 * g1/g2 = a point's bytes, 64/128 BN254, 96/192 BLS12-381):
 *   points    (2v + (v − public − 1) + n)·g1 + v·g2   when resident
 *   vectors   per worker: 5·n·32 + v·32 (a, b kept for a CPU re-prove,
 *             scratch, two LDE outputs; the witness; c = a∘b is formed in
 *             the scratch, gpu_h_stage)
 *   ntt       2·n·32 (twiddles, coset table)
 *   msm       the G1 and G2 engines' working buffers (sort pairs, partial
 *             and bucket sums, CUB scratch: gpu_msm_plan), for MSM parts of
 *             at most chunk points, plus 2·chunk points of staging when
 *             streamed
 *   pinned    what page-locked host memory costs the device (gpu_mem.h
 *             gpu_mem_register): what is locked already whatever the way
 *             (the slot pool), plus, when streamed, the key's own lock (its
 *             charge when locked, else gpu_mem_pin_ceiling of its bytes,
 *             the most the lock can be charged) — counted before the rest
 *             is sized, so the total stays within the budget
 * cuda_plan_key picks the first way that fits the budget, in this order:
 * points resident with no chunk limit, then chunk 2^22 and 2^20; then
 * points streamed from page-locked host memory with chunks of 2^24 down to
 * 2^16 points; two workers' vectors before one; all of these with the fast
 * buffer sets first, then all again with the lean ones (3 vectors a worker
 * instead of 5: cuda_set_sizes).
 */
#ifndef SLOTPROVE_CUDA_BUDGET_H
#define SLOTPROVE_CUDA_BUDGET_H

#include <stddef.h>

#include "err.h"
#include "gpu_types.h"
#include "zkey.h"

struct cuda_plan {
    int stream;       /* the points stay in host memory, streamed per MSM part */
    size_t chunk;     /* the most points of one MSM part (0: no limit) */
    unsigned sets;    /* workers' buffer sets that fit: 1 or 2 */
    int lean;         /* lean buffer sets (cuda_set_sizes) */
    size_t points, msm, vectors, ntt; /* bytes: points (0 when streamed), the
                                         engines, one set's vectors, tables */
    size_t pinned;    /* page-locked host memory's charge: pinned_held, plus
                         pinned_stream when streamed (cuda_shape) */
    size_t total;     /* points + msm + sets·vectors + ntt + pinned */
};

/* A worker's buffer set (cuda_sets.c) for a domain of n points and v
 * wires, in bytes, in the order a, b, c, scratch, two LDE outputs, witness
 * (a, b and the witness uploaded from the slot; c = a∘b formed on the
 * device, gpu_h_stage):
 *   fast (lean 0)  a, b kept for a CPU re-prove, scratch (c is formed
 *                  there) and two LDE outputs: 5 × n × 32, c 0, the
 *                  witness v × 32;
 *   lean (lean 1)  a, b, c only (3 × n × 32), each coset LDE in place on a
 *                  compact NTT domain (twiddles from two half tables:
 *                  gpu_ntt_create_compact) and the H scalars written over
 *                  a; the witness v × 32. The inputs
 *                  are gone after the NTTs: a failed attempt or check is
 *                  proved again from the start (a device error), not from
 *                  the device's copy.
 * cuda_set_bytes: their ledger bytes (gpu_mem_charge each), what
 * cuda_set_reserve takes. */
#define CUDA_SET_NBUF 7
void cuda_set_sizes(size_t domain_size, size_t n_vars, int lean, size_t sz[CUDA_SET_NBUF]);
size_t cuda_set_bytes(size_t domain_size, size_t n_vars, int lean);

/* What a key asks of the device, whatever its format: the G1 engine's
 * four arrays of points (g1n; a zkey's A, B1, C, H, a bellperson key's h,
 * l, a, b_g1), the G2 engine's one (g2n), one worker's buffer bytes and
 * the NTT tables' bytes, fast [0] and lean [1], and the most workers
 * (1 or 2). A zkey's: cuda_plan_key; a bellperson key's:
 * cuda_bellperson.c (three vectors, the MSMs' host-scalar buffers, the
 * full or the compact NTT domain). */
struct cuda_shape {
    enum gpu_group g1, g2;
    size_t g1n[4], g2n;
    size_t vec[2], ntt[2];
    unsigned max_sets;
    size_t pinned_held;   /* ledger bytes of page-locked memory held in any
                             way (the slot pool's charge) */
    size_t pinned_stream; /* the key's own lock's charge, in streamed ways
                             only (its charge when locked, else the ceiling) */
};

/* The plan for s within budget bytes (the order above): pl ← the first
 * way that fits. -E2BIG when not even one lean worker streaming 2^16 points
 * at a time fits, with a message naming the key (name), the budget and the
 * figure needed (pl then holds that smallest way); -EIO on a CUDA error. */
int cuda_plan_shape(const struct cuda_shape *s, const char *name, size_t budget,
                    struct cuda_plan *pl, struct sp_err *e);

/* The plan for zk within budget bytes (cuda_plan_shape of its shape, with
 * pinned_held and pinned_stream as cuda_shape's). -E2BIG when not even one
 * worker streaming 2^16 points at a time fits, with a message naming the
 * key (name), the budget and the figure needed; -EIO on a CUDA error. */
int cuda_plan_key(const struct zkey *zk, const char *name, size_t budget, size_t pinned_held,
                  size_t pinned_stream, struct cuda_plan *pl, struct sp_err *e);

/* The least budget any key needs (one worker, a 2^10 domain, streamed,
 * its lock charged at the ceiling; the slot pool's lock not counted):
 * gpud refuses a smaller --gpu-mem at start. */
size_t cuda_budget_floor(void);

#endif
