/*
 * zkey_check.h — key validation at load: every elliptic-curve point of a
 * zkey lies on its curve.
 *
 * A point off the curve (a corrupt or hostile key) would make every proof
 * from the key wrong; checking costs one curve equation per point, spread
 * over threads (common/parallel.h), once per key (the daemon caches keys by
 * hash). Sections checked, in file order: the Groth16 header's alpha1,
 * beta1, beta2, gamma2, delta1, delta2 (section 2, indices 0..5), IC (3),
 * A (5), B1 (6), B2 (7, on the twist), C (8), H (9). Coordinates must also
 * be below q (Montgomery form as stored); all-zero is the point at infinity
 * and passes.
 */
#ifndef SLOTPROVE_ZKEY_CHECK_H
#define SLOTPROVE_ZKEY_CHECK_H

#include <stdint.h>

#include "err.h"
#include "zkey.h"

/* Checks every point of an opened zkey on nthreads threads (0 = all
 * CPUs). Returns 0, or -SP_ERANGE with "PATH: section N (NAME) point I:
 * not on the curve" (or "coordinate not below q") for the first bad point
 * in file order. *points (optional) is set to the number of points. */
int zkey_check_points(const struct zkey *zk, unsigned nthreads, uint64_t *points,
                      struct sp_err *e);

#endif
