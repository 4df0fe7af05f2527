/*
 * fp254_ifma.h - BN254 Fq arithmetic eight lanes at a time with AVX-512
 * IFMA (vpmadd52luq/vpmadd52huq), for work whose products do not depend on
 * each other: the G1 and G2 MSMs' batch-affine bucket additions and the
 * key check's G1 curve equations. The kernels: fp254_ifma_kern.h; the
 * BLS12-381 counterpart: fp381_ifma.h.
 *
 * Values in and out are the scalar path's (bn254.h): Montgomery form with
 * R = 2^256, 4 limbs, fully reduced; the kernels give the same limbs as
 * bn254_fp_mul & co. Chosen at run time (ifma.h): ifma_enabled() is 1
 * where cpuid reports AVX-512F and IFMA and $SLOTPROVE_NO_IFMA is unset or
 * empty; callers keep their scalar path for the other case. Nothing
 * allocates.
 */
#ifndef SLOTPROVE_FP254_IFMA_H
#define SLOTPROVE_FP254_IFMA_H

#include "bn254.h"
#include "ifma.h"

/* r[k] = a[k]*b[k]*2^-256 mod p (Montgomery product) for k < 8, inputs
 * < p, outputs fully reduced: 8 elements of 4 limbs each way; the IFMA
 * kernel where ifma_enabled(), else eight bn254_fp_mul. r may alias a or b
 * (element by element). */
void bn254_fp_mul_x8(bn254_fp_t r[8], const bn254_fp_t a[8], const bn254_fp_t b[8]);

/* The IFMA kernel itself (same contract); only call it where
 * ifma_supported() is 1. */
void bn254_fp_mul_x8_ifma(bn254_fp_t r[8], const bn254_fp_t a[8], const bn254_fp_t b[8]);

/* msm_buckets_tmpl.h's add_batch for BN254 G1, same contract (n affine
 * additions *dst[i] += *src[i] with one inversion; den, pre: n scratch
 * elements each), with eight lanes: lane k runs the batch inversion's
 * products over entries 8g + k, the eight lanes share one inversion, and
 * the chord additions go eight at a time; doublings finish one by one.
 * Only where ifma_supported() is 1. */
void bn254_g1_add_batch_ifma(bn254_g1_affine_t *const *dst, uint8_t *const *dst_set,
                             const bn254_g1_affine_t *const *src, unsigned n,
                             bn254_fp_t *den, bn254_fp_t *pre);

/* The same for BN254 G2 (Fp2 lanes: each product three Fq products,
 * Karatsuba; fp254_ifma_g2.c). */
void bn254_g2_add_batch_ifma(bn254_g2_affine_t *const *dst, uint8_t *const *dst_set,
                             const bn254_g2_affine_t *const *src, unsigned n,
                             bn254_fp2_t *den, bn254_fp2_t *pre);

/* Bit k (k < 8) of the result is set when the BN254 G1 affine point
 * *pts[k] (Montgomery form, both coordinates < p: the caller checks) is on
 * y^2 = x^3 + 3 or is (0, 0), the point at infinity; the same answer as
 * bn254_g1_affine_is_on_curve. Only where ifma_supported() is 1. Used by
 * the key check (zkey_check.c). */
unsigned bn254_g1_on_curve_x8_ifma(const bn254_g1_affine_t *const pts[8]);

#endif
