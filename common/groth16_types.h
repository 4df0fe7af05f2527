/*
 * groth16_types.h — the verifying key as verification uses it (struct
 * groth16_vk). A header without a .c: groth16.h (the curve-independent
 * entry points) and the per-curve bodies (groth16_tmpl.h, through
 * bn254_groth16.h / bls12381_groth16.h) both need it, and the per-curve
 * bodies must not include groth16.h, whose groth16.c calls them.
 */
#ifndef SLOTPROVE_GROTH16_TYPES_H
#define SLOTPROVE_GROTH16_TYPES_H

#include <stdint.h>

#include "curve.h"

/* Points are affine, coordinates in Montgomery form as little-endian bytes,
 * x then y, Fp2 as c0 then c1: the zkey's own layout (n8q = 32 or 48 bytes
 * per coordinate); all-zero is the point at infinity. */
struct groth16_vk {
    enum curve_id curve;
    uint32_t n_public;
    uint8_t alpha1[96];
    uint8_t beta2[192], gamma2[192], delta2[192];
    const uint8_t *ic;   /* (n_public + 1) G1 points */
    uint8_t *ic_owned;   /* ic when this struct allocated it, else NULL */
    int prepared;        /* alphabeta holds e(alpha1, beta2) */
    uint64_t alphabeta[12 * 6]; /* Fp12 (Montgomery), per the curve's type */
};

#endif
