/*
 * bls12381_zcash.h - the zcash encoding of BLS12-381 points, the one
 * bellperson's .params/.vk files and 192-byte proofs use (zkcrypto
 * bls12_381 `to_uncompressed`/`to_compressed`, blst's serialize/compress;
 * described in the zkcrypto crate's notes/serialization.md).
 *
 * Layout (all big-endian, coordinates in standard form, < q):
 *   G1 uncompressed  96 bytes  x (48) || y (48)
 *   G1 compressed    48 bytes  x (48)
 *   G2 uncompressed 192 bytes  x.c1 || x.c0 || y.c1 || y.c0   (c1 first)
 *   G2 compressed    96 bytes  x.c1 || x.c0
 * The top three bits of byte 0 are flags:
 *   0x80 C  compressed form
 *   0x40 I  point at infinity: every other bit of the encoding is zero
 *   0x20 S  (compressed only) y is the lexicographically larger root: for
 *           Fp, y > (q-1)/2; for Fp2, y.c1 larger, or y.c1 = 0 and y.c0
 *           larger. Must be 0 in an uncompressed encoding or at infinity.
 * Points in slotprove are affine Montgomery-form coordinates with (0, 0) for
 * infinity (curve_tmpl.h); these functions convert.
 */
#ifndef SLOTPROVE_BLS12381_ZCASH_H
#define SLOTPROVE_BLS12381_ZCASH_H

#include <stddef.h>
#include <stdint.h>

#include "bls12381.h"

#define ZCASH_G1_BYTES 96
#define ZCASH_G1_COMPRESSED_BYTES 48
#define ZCASH_G2_BYTES 192
#define ZCASH_G2_COMPRESSED_BYTES 96

#define ZCASH_FLAG_COMPRESSED 0x80
#define ZCASH_FLAG_INFINITY 0x40
#define ZCASH_FLAG_SIGN 0x20

/* Why a decode failed (0 = it did not). zcash_reason() names each. */
enum zcash_status {
    ZCASH_OK = 0,
    ZCASH_BAD_COMPRESSION, /* C flag disagrees with the form expected */
    ZCASH_BAD_SIGN,        /* S flag set in an uncompressed point or at infinity */
    ZCASH_BAD_INFINITY,    /* I flag set but other bits non-zero */
    ZCASH_NOT_CANONICAL,   /* a coordinate >= q */
    ZCASH_NOT_ON_CURVE,    /* y^2 != x^3 + b (uncompressed), or no y for x (compressed) */
    ZCASH_NOT_IN_SUBGROUP, /* on the curve but not in the order-r subgroup */
};

/* One line for a status: "compressed flag set where an uncompressed point is
 * required", "not on the curve", ... */
const char *zcash_reason(enum zcash_status st);

/* Encoders: out gets the sizes above; p affine (Montgomery form, (0, 0) =
 * infinity) and on its curve (not checked). */
void bls12381_g1_to_zcash(uint8_t out[ZCASH_G1_BYTES], const bls12381_g1_affine_t *p);
void bls12381_g1_to_zcash_compressed(uint8_t out[ZCASH_G1_COMPRESSED_BYTES],
                                     const bls12381_g1_affine_t *p);
void bls12381_g2_to_zcash(uint8_t out[ZCASH_G2_BYTES], const bls12381_g2_affine_t *p);
void bls12381_g2_to_zcash_compressed(uint8_t out[ZCASH_G2_COMPRESSED_BYTES],
                                     const bls12381_g2_affine_t *p);

/* Decoders: in holds the sizes above. Flags and canonical coordinates are
 * always checked, and the curve equation (uncompressed; compressed points
 * are on the curve by construction or fail with ZCASH_NOT_ON_CURVE). With
 * `subgroup` set, membership in the order-r subgroup too (Scott's
 * endomorphism test, bls12381_pairing.h; ~93 us per G1, ~121 us per G2 point on
 * one core). Returns ZCASH_OK and sets *p, or the reason (p unspecified). */
enum zcash_status bls12381_g1_from_zcash(bls12381_g1_affine_t *p,
                                         const uint8_t in[ZCASH_G1_BYTES], int subgroup);
enum zcash_status bls12381_g1_from_zcash_compressed(bls12381_g1_affine_t *p,
                                                    const uint8_t in[ZCASH_G1_COMPRESSED_BYTES],
                                                    int subgroup);
enum zcash_status bls12381_g2_from_zcash(bls12381_g2_affine_t *p,
                                         const uint8_t in[ZCASH_G2_BYTES], int subgroup);
enum zcash_status bls12381_g2_from_zcash_compressed(bls12381_g2_affine_t *p,
                                                    const uint8_t in[ZCASH_G2_COMPRESSED_BYTES],
                                                    int subgroup);

/* Square roots (Montgomery form in and out): 1 and *ret = a root if a is a
 * square, else 0. Fp: a^((q+1)/4) (q = 3 mod 4); Fp2: Adj and
 * Rodriguez-Henriquez, ePrint 2012/685, algorithm 9. Which of the two roots
 * comes back is unspecified. */
int bls12381_fp_sqrt(bls12381_fp_t *ret, const bls12381_fp_t *a);
int bls12381_fp2_sqrt(bls12381_fp2_t *ret, const bls12381_fp2_t *a);

#endif /* SLOTPROVE_BLS12381_ZCASH_H */
