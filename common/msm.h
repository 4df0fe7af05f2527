/*
 * msm.h — multi-scalar multiplication for G1 and G2 of each curve
 * (msm_tmpl.h instances).
 *
 *   X_msm(ret, points, scalars, n, nthreads) sets ret = Σ_{i<n} k_i·P_i.
 *   points: n affine points laid out as in a snarkjs .zkey (x‖y, Montgomery
 *   form, all-zero = infinity; any alignment). scalars: n × 32 bytes, standard
 *   (non-Montgomery) form, little-endian, < r. nthreads 0 = parallel_threads().
 *   Scalars 0 and 1 cost no window work (see msm_tmpl.h). When fewer than
 *   2^15 scalars are ≥ 2, the G1 MSMs split them with the GLV endomorphism
 *   and the BLS12-381 G2 MSM with ψ (glv.h; the result is the same, for
 *   points in the order-r subgroup); SLOTPROVE_NO_GLV=1 in the environment
 *   turns that off (for side-by-side benchmarks).
 *   Returns 0, -ENOMEM, or -EINVAL for n ≥ 2^32.
 */
#ifndef SLOTPROVE_MSM_H
#define SLOTPROVE_MSM_H

#include <stddef.h>

#include "bls12381.h"
#include "bn254.h"

int bn254_g1_msm(bn254_g1_jac_t *ret, const void *points, const void *scalars, size_t n, unsigned nthreads);
int bn254_g2_msm(bn254_g2_jac_t *ret, const void *points, const void *scalars, size_t n, unsigned nthreads);
int bls12381_g1_msm(bls12381_g1_jac_t *ret, const void *points, const void *scalars, size_t n, unsigned nthreads);
int bls12381_g2_msm(bls12381_g2_jac_t *ret, const void *points, const void *scalars, size_t n, unsigned nthreads);

/*
 * The G1 MSM of dense scalars in pieces, for a caller that schedules the
 * window tasks itself among other work (gpud/cpu/prove_tmpl.h: the H MSM as
 * the shared tail of the proof's stages on two threads):
 *   X_g1_msm_split_begin(&s, points, scalars, n, nthreads) plans the windows
 *     for nthreads threads and keeps the pointers (the scalars are read only
 *     by the tasks, so they may be filled in between): 0, -ENOMEM, -EINVAL;
 *   X_g1_msm_split_tasks(s) the number of tasks T;
 *   X_g1_msm_split_run(s, b, e) runs tasks [b, e) ⊆ [0, T), each exactly
 *     once over all calls, from any threads at once;
 *   X_g1_msm_split_end(ret, s) after every task has run: ret = Σ k_i·P_i,
 *     frees s; 0 or -ENOMEM (a task could not allocate its buckets).
 * Same result as X_msm, without its 0/1 split and endomorphism.
 */
struct bn254_g1_msm_split;
struct bls12381_g1_msm_split;
int bn254_g1_msm_split_begin(struct bn254_g1_msm_split **s, const void *points,
                             const void *scalars, size_t n, unsigned nthreads);
size_t bn254_g1_msm_split_tasks(const struct bn254_g1_msm_split *s);
void bn254_g1_msm_split_run(struct bn254_g1_msm_split *s, size_t b, size_t e);
int bn254_g1_msm_split_end(bn254_g1_jac_t *ret, struct bn254_g1_msm_split *s);
int bls12381_g1_msm_split_begin(struct bls12381_g1_msm_split **s, const void *points,
                                const void *scalars, size_t n, unsigned nthreads);
size_t bls12381_g1_msm_split_tasks(const struct bls12381_g1_msm_split *s);
void bls12381_g1_msm_split_run(struct bls12381_g1_msm_split *s, size_t b, size_t e);
int bls12381_g1_msm_split_end(bls12381_g1_jac_t *ret, struct bls12381_g1_msm_split *s);

#endif
