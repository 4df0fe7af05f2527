/*
 * curve.h — which pairing curve a file is on, and the sizes that follow.
 *
 * snarkjs names: "bn128" (BN254) and "bls12381" (BLS12-381), as written in
 * proof.json's "curve" (snarkjs src/curves.js). Files identify their curve
 * only by the primes in their headers: q (base field) and r (scalar field).
 */
#ifndef SLOTPROVE_CURVE_H
#define SLOTPROVE_CURVE_H

#include <stddef.h>
#include <stdint.h>

enum curve_id { CURVE_BN254 = 0, CURVE_BLS12381 = 1, CURVE_COUNT };

struct curve_info {
    const char *name;        /* snarkjs name: "bn128" / "bls12381" */
    const char *label;       /* "BN254" / "BLS12-381" */
    uint32_t n8q;            /* bytes of an Fq element: 32 / 48 */
    uint32_t n8r;            /* bytes of an Fr element: 32 / 32 */
    size_t g1_bytes;         /* affine G1 in a zkey: 2·n8q */
    size_t g2_bytes;         /* affine G2 in a zkey: 4·n8q */
    unsigned fr_two_adicity; /* largest s with 2^s | r−1: 28 / 32 */
    const uint64_t *q;       /* base-field prime, n8q/8 LE limbs */
    const uint64_t *r;       /* scalar-field prime, 4 LE limbs */
};

const struct curve_info *curve_get(enum curve_id id);

/* The curve whose primes are q (n8q bytes LE) and r (n8r bytes LE); -1 if none. */
int curve_from_primes(const uint8_t *q, uint32_t n8q, const uint8_t *r, uint32_t n8r);

/* The curve whose scalar field prime is r (n8r bytes LE); -1 if none. */
int curve_from_r(const uint8_t *r, uint32_t n8r);

/* 1 if the 32-byte LE value is < the curve's r, else 0. */
int curve_scalar_below_r(const struct curve_info *ci, const uint8_t *le32);

/* Writes a prime (n bytes LE) as 0x-hex into buf, for error messages. */
void curve_hex(char *buf, size_t len, const uint8_t *le, uint32_t n);

#endif
