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

#endif
