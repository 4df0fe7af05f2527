/*
 * gpu_data.h — inputs for the GPU test and benchmark programs
 * (tests/gpu_test.c, tests/gpu_bench.c): random points of each group in the
 * zkey layout, random scalars, random Fr vectors.
 */
#ifndef SLOTPROVE_TESTS_GPU_DATA_H
#define SLOTPROVE_TESTS_GPU_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_types.h"

/* Bytes of one affine point of g in the zkey layout (64, 128, 96, 192). */
size_t gpu_data_point_bytes(enum gpu_group g);

/* n affine points (malloc'd, zkey layout): chunks of consecutive multiples
 * P_{j+1} = P_j + Q of the generator from random starting multiples, then
 * batch-converted to affine; every point index listed in inf[0..ninf) is set
 * to infinity (all zero). NULL on allocation failure. */
void *gpu_data_points(enum gpu_group g, size_t n, const size_t *inf, size_t ninf, uint64_t seed);

/* Uniform xorshift stream for the fixtures (not for keys). */
uint64_t gpu_data_rand(uint64_t *state);

/* n scalars of 32 B, standard form, uniform below r of the curve. */
void gpu_data_scalars(void *out, enum gpu_curve c, size_t n, uint64_t *state);

/* n Fr elements (32 B, Montgomery form) uniform below r. */
void gpu_data_fr(void *out, enum gpu_curve c, size_t n, uint64_t *state);

#endif
