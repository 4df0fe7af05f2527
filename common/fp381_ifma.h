/*
 * fp381_ifma.h - BLS12-381 Fq arithmetic eight lanes at a time with AVX-512
 * IFMA (vpmadd52luq/vpmadd52huq), for work whose products do not depend on
 * each other: the G1 and G2 MSMs' batch-affine bucket additions and the
 * key check's G1 curve equations.
 *
 * Values in and out are the scalar path's (bls12381.h): Montgomery form
 * with R = 2^384, 6 limbs, fully reduced; the kernels give the same limbs
 * as bls12381_fp_mul & co. Chosen at run time (ifma.h): fp381_ifma_enabled()
 * is 1 where cpuid (and the OS's saved vector state) reports AVX-512F and
 * IFMA and $SLOTPROVE_NO_IFMA is unset or empty; callers keep their scalar
 * path for the other case. Nothing allocates.
 */
#ifndef SLOTPROVE_FP381_IFMA_H
#define SLOTPROVE_FP381_IFMA_H

#include "bls12381.h"

/* 1 when the IFMA kernels are in use (bls12381_fp_mul_x8, the G1 MSM and
 * the key check take them), else 0; decided once, before main(). */
int fp381_ifma_enabled(void);

/* 1 when the CPU and OS can run the IFMA kernel at all (whatever
 * $SLOTPROVE_NO_IFMA says), else 0: tests compare the kernel with the
 * scalar product where this is 1. */
int fp381_ifma_supported(void);

/* r[k] = a[k]*b[k]*2^-384 mod p (Montgomery product) for k < 8, inputs
 * < p, outputs fully reduced: 8 elements of 6 limbs each way; the IFMA
 * kernel where enabled, else eight bls12381_fp_mul. r may alias a or b
 * (element by element). */
void bls12381_fp_mul_x8(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                        const bls12381_fp_t b[8]);

/* The IFMA kernel itself (same contract); only call it where
 * fp381_ifma_supported() is 1. */
void bls12381_fp_mul_x8_ifma(bls12381_fp_t r[8], const bls12381_fp_t a[8],
                             const bls12381_fp_t b[8]);

/* msm_buckets_tmpl.h's add_batch for BLS12-381 G1, same contract (n
 * affine additions *dst[i] += *src[i] with one inversion; den, pre: n
 * scratch elements each), with eight lanes: lane k runs the batch
 * inversion's products over entries 8g + k, the eight lanes share one
 * inversion, and the chord additions go eight at a time; doublings finish
 * one by one. Only where fp381_ifma_supported() is 1. */
void bls12381_g1_add_batch_ifma(bls12381_g1_affine_t *const *dst, uint8_t *const *dst_set,
                                const bls12381_g1_affine_t *const *src, unsigned n,
                                bls12381_fp_t *den, bls12381_fp_t *pre);

/* The same for BLS12-381 G2 (Fp2 lanes: each product three Fq products,
 * Karatsuba; fp381_ifma_g2.c). */
void bls12381_g2_add_batch_ifma(bls12381_g2_affine_t *const *dst, uint8_t *const *dst_set,
                                const bls12381_g2_affine_t *const *src, unsigned n,
                                bls12381_fp2_t *den, bls12381_fp2_t *pre);

/* Bit k (k < 8) of the result is set when the BLS12-381 G1 affine point
 * *pts[k] (Montgomery form, both coordinates < p: the caller checks) is on
 * y^2 = x^3 + 4 or is (0, 0), the point at infinity; the same answer as
 * bls12381_g1_affine_is_on_curve. Only where fp381_ifma_supported() is 1.
 * Used by the key check (zkey_check.c). */
unsigned bls12381_g1_on_curve_x8_ifma(const bls12381_g1_affine_t *const pts[8]);

#endif
