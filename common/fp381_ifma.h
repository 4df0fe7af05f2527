/*
 * fp381_ifma.h - eight independent BLS12-381 Fq Montgomery products at once
 * with AVX-512 IFMA (vpmadd52luq/vpmadd52huq), for loops whose products do
 * not depend on each other (the batch-affine bucket additions).
 *
 * Same contract as bls12381_fp_mul, eight times: r[k] = a[k]*b[k]*2^-384
 * mod p, inputs < p, outputs fully reduced, Montgomery form in and out
 * (R = 2^384, the scalar path's R, so the two paths give identical limbs).
 * Chosen at run time: the AVX-512 IFMA kernel where cpuid (and the OS's
 * saved vector state) reports AVX-512F and IFMA and $SLOTPROVE_NO_IFMA is
 * unset or empty; else eight calls of bls12381_fp_mul. Nothing allocates.
 */
#ifndef SLOTPROVE_FP381_IFMA_H
#define SLOTPROVE_FP381_IFMA_H

#include "bls12381.h"

/* 1 when bls12381_fp_mul_x8 takes the IFMA kernel, else 0 (decided once,
 * before main(), see fp381_ifma.c). */
int fp381_ifma_enabled(void);

/* 1 when the CPU and OS can run the IFMA kernel at all (whatever
 * $SLOTPROVE_NO_IFMA says), else 0: tests compare the kernel with the
 * scalar product where this is 1. */
int fp381_ifma_supported(void);

/* r[k] = a[k]*b[k] (Montgomery product) for k < 8: 8 elements of 6 limbs
 * each way. r may alias a or b (element by element). */
void bls12381_fp_mul_x8(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                        const bls12381_fp_t b[8]);

/* The IFMA kernel itself (same contract); only call it where
 * fp381_ifma_supported() is 1. */
void bls12381_fp_mul_x8_ifma(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                             const bls12381_fp_t b[8]);

/* Eight chord additions of distinct BLS12-381 G1 affine points, in place:
 * for k < 8, B = *dst[k], P = *src[k] with x_B != x_P, and
 * inv[k]*pre[k] = 1/(x_P - x_B) (the batch inversion's two factors):
 * λ = (y_P - y_B)/(x_P - x_B), B = (λ² - x_B - x_P, λ(x_B - x3) - y_B)
 * (the affine addition of curve_tmpl.h). Only where
 * fp381_ifma_supported() is 1. Used by the G1 MSM's batch-affine bucket
 * additions (msm_buckets_tmpl.h, MSM_ADD_X8). */
void bls12381_g1_add_x8_ifma(bls12381_g1_affine_t *const dst[8],
                             const bls12381_g1_affine_t *const src[8],
                             const bls12381_fp_t *const inv[8],
                             const bls12381_fp_t *const pre[8]);

/* Bit k (k < 8) of the result is set when the BLS12-381 G1 affine point
 * *pts[k] (Montgomery form, both coordinates < p: the caller checks) is on
 * y^2 = x^3 + 4 or is (0, 0), the point at infinity; the same answer as
 * bls12381_g1_affine_is_on_curve. Only where fp381_ifma_supported() is 1.
 * Used by the key check (zkey_check.c). */
unsigned bls12381_g1_on_curve_x8_ifma(const bls12381_g1_affine_t *const pts[8]);

#endif
