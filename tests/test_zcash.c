/*
 * test_zcash.c - the zcash encoding of BLS12-381 points
 * (common/bls12381_zcash.h): the generators' encodings against the published
 * values (IETF pairing-friendly-curves draft, zkcrypto's test vectors);
 * round trips of random points k*G and infinity in all four forms; the sign
 * bit of -P; every malformed case (flags, coordinate >= q, off the curve, no
 * square root, outside the subgroup, the last checked against r*P = O with
 * the slow test); square roots in Fp and Fp2 against squaring.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bls12381.h"
#include "bls12381_pairing.h"
#include "bls12381_zcash.h"

static uint64_t zc_state = 0x1234567887654321ULL;

static uint64_t zc_rand(void)
{
    uint64_t x = zc_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    zc_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        cr_assert(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
}

static void rand_g1(bls12381_g1_affine_t *p)
{
    uint64_t k[4] = { zc_rand(), zc_rand(), zc_rand(), zc_rand() >> 2 };
    bls12381_g1_jac_t j;
    bls12381_g1_mul_scalar_affine(&j, &bls12381_g1_generator, k, 4);
    bls12381_g1_to_affine(p, &j);
}

static void rand_g2(bls12381_g2_affine_t *p)
{
    uint64_t k[4] = { zc_rand(), zc_rand(), zc_rand(), zc_rand() >> 2 };
    bls12381_g2_jac_t j;
    bls12381_g2_mul_scalar_affine(&j, &bls12381_g2_generator, k, 4);
    bls12381_g2_to_affine(p, &j);
}

/* Published encodings of the generators. */
#define G1_GEN_COMPRESSED                                                                  \
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3a" \
    "f00adb22c6bb"
#define G1_GEN_UNCOMPRESSED                                                                \
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3a" \
    "f00adb22c6bb08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744" \
    "a2888ae40caa232946c5e7e1"
#define G2_GEN_COMPRESSED                                                                  \
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac" \
    "7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326" \
    "a805bbefd48056c8c121bdb8"

Test(zcash, generators_match_published_encodings)
{
    uint8_t want[ZCASH_G2_COMPRESSED_BYTES], got[ZCASH_G2_BYTES];
    hex_to_bytes(want, G1_GEN_COMPRESSED, 48);
    bls12381_g1_to_zcash_compressed(got, &bls12381_g1_generator);
    cr_assert(memcmp(got, want, 48) == 0);
    uint8_t want96[96];
    hex_to_bytes(want96, G1_GEN_UNCOMPRESSED, 96);
    bls12381_g1_to_zcash(got, &bls12381_g1_generator);
    cr_assert(memcmp(got, want96, 96) == 0);
    hex_to_bytes(want, G2_GEN_COMPRESSED, 96);
    bls12381_g2_to_zcash_compressed(got, &bls12381_g2_generator);
    cr_assert(memcmp(got, want, 96) == 0);

    bls12381_g2_affine_t q;
    cr_assert_eq(bls12381_g2_from_zcash_compressed(&q, want, 1), ZCASH_OK);
    cr_assert(bls12381_g2_affine_eq(&q, &bls12381_g2_generator));
    /* uncompressed G2: x as in the compressed form without its flags */
    bls12381_g2_to_zcash(got, &bls12381_g2_generator);
    want[0] &= 0x1f;
    cr_assert(memcmp(got, want, 96) == 0);
}

Test(zcash, round_trips)
{
    for (int i = 0; i < 8; i++) {
        bls12381_g1_affine_t p, q;
        bls12381_g2_affine_t p2, q2;
        uint8_t b[ZCASH_G2_BYTES];
        if (i == 0) {
            bls12381_g1_affine_set_inf(&p);
            bls12381_g2_affine_set_inf(&p2);
        } else {
            rand_g1(&p);
            rand_g2(&p2);
        }
        bls12381_g1_to_zcash(b, &p);
        cr_assert_eq(b[0] & 0xe0, i == 0 ? ZCASH_FLAG_INFINITY : 0);
        cr_assert_eq(bls12381_g1_from_zcash(&q, b, 1), ZCASH_OK);
        cr_assert(bls12381_g1_affine_eq(&p, &q), "g1 %d", i);
        bls12381_g1_to_zcash_compressed(b, &p);
        cr_assert(b[0] & ZCASH_FLAG_COMPRESSED);
        cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, b, 1), ZCASH_OK);
        cr_assert(bls12381_g1_affine_eq(&p, &q), "g1c %d", i);

        bls12381_g2_to_zcash(b, &p2);
        cr_assert_eq(bls12381_g2_from_zcash(&q2, b, 1), ZCASH_OK);
        cr_assert(bls12381_g2_affine_eq(&p2, &q2), "g2 %d", i);
        bls12381_g2_to_zcash_compressed(b, &p2);
        cr_assert_eq(bls12381_g2_from_zcash_compressed(&q2, b, 1), ZCASH_OK);
        cr_assert(bls12381_g2_affine_eq(&p2, &q2), "g2c %d", i);
    }
}

Test(zcash, negation_flips_only_the_sign_bit)
{
    bls12381_g1_affine_t p, n;
    bls12381_g2_affine_t p2, n2;
    uint8_t a[96], b[96];
    rand_g1(&p);
    bls12381_g1_affine_neg(&n, &p);
    bls12381_g1_to_zcash_compressed(a, &p);
    bls12381_g1_to_zcash_compressed(b, &n);
    cr_assert_eq(a[0] ^ b[0], ZCASH_FLAG_SIGN);
    cr_assert(memcmp(a + 1, b + 1, 47) == 0);
    rand_g2(&p2);
    bls12381_g2_affine_neg(&n2, &p2);
    bls12381_g2_to_zcash_compressed(a, &p2);
    bls12381_g2_to_zcash_compressed(b, &n2);
    cr_assert_eq(a[0] ^ b[0], ZCASH_FLAG_SIGN);
    cr_assert(memcmp(a + 1, b + 1, 95) == 0);
}

Test(zcash, malformed_flags)
{
    bls12381_g1_affine_t p, q;
    bls12381_g2_affine_t p2, q2;
    uint8_t u[96], c[48], u2[192], c2[96];
    rand_g1(&p);
    rand_g2(&p2);
    bls12381_g1_to_zcash(u, &p);
    bls12381_g1_to_zcash_compressed(c, &p);
    bls12381_g2_to_zcash(u2, &p2);
    bls12381_g2_to_zcash_compressed(c2, &p2);

    uint8_t t[192];
    /* compressed flag on an uncompressed point, and missing on a compressed one */
    memcpy(t, u, 96), t[0] |= 0x80;
    cr_assert_eq(bls12381_g1_from_zcash(&q, t, 0), ZCASH_BAD_COMPRESSION);
    memcpy(t, c, 48), t[0] &= 0x7f;
    cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, t, 0), ZCASH_BAD_COMPRESSION);
    memcpy(t, u2, 192), t[0] |= 0x80;
    cr_assert_eq(bls12381_g2_from_zcash(&q2, t, 0), ZCASH_BAD_COMPRESSION);
    memcpy(t, c2, 96), t[0] &= 0x7f;
    cr_assert_eq(bls12381_g2_from_zcash_compressed(&q2, t, 0), ZCASH_BAD_COMPRESSION);
    /* sign flag on an uncompressed point */
    memcpy(t, u, 96), t[0] |= 0x20;
    cr_assert_eq(bls12381_g1_from_zcash(&q, t, 0), ZCASH_BAD_SIGN);
    memcpy(t, u2, 192), t[0] |= 0x20;
    cr_assert_eq(bls12381_g2_from_zcash(&q2, t, 0), ZCASH_BAD_SIGN);
    /* infinity flag with a coordinate left in */
    memcpy(t, u, 96), t[0] |= 0x40;
    cr_assert_eq(bls12381_g1_from_zcash(&q, t, 0), ZCASH_BAD_INFINITY);
    memcpy(t, c2, 96), t[0] |= 0x40, t[0] &= ~0x20;
    cr_assert_eq(bls12381_g2_from_zcash_compressed(&q2, t, 0), ZCASH_BAD_INFINITY);
    /* infinity with the sign flag */
    memset(t, 0, 48), t[0] = 0xe0;
    cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, t, 0), ZCASH_BAD_SIGN);
    /* a last byte set under the infinity flag */
    memset(t, 0, 192), t[0] = 0x40, t[191] = 1;
    cr_assert_eq(bls12381_g2_from_zcash(&q2, t, 0), ZCASH_BAD_INFINITY);
    /* all zero bytes are not infinity in the zcash encoding (no I flag):
     * (0, 0) is not on the curve */
    memset(t, 0, 96);
    cr_assert_eq(bls12381_g1_from_zcash(&q, t, 0), ZCASH_NOT_ON_CURVE);
    (void)p2;
}

/* q (big-endian) written over the 48 bytes at out, flags kept. */
static void put_q(uint8_t *out)
{
    uint8_t f = out[0] & 0xe0;
    for (int i = 0; i < 48; i++)
        out[i] = (uint8_t)(bls12381_fp_modulus.l[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
    out[0] |= f;
}

Test(zcash, coordinate_not_below_q)
{
    bls12381_g1_affine_t p, q;
    bls12381_g2_affine_t p2, q2;
    uint8_t u[96], c[48], u2[192];
    rand_g1(&p);
    rand_g2(&p2);
    bls12381_g1_to_zcash(u, &p);
    bls12381_g1_to_zcash_compressed(c, &p);
    bls12381_g2_to_zcash(u2, &p2);
    put_q(u + 48);
    cr_assert_eq(bls12381_g1_from_zcash(&q, u, 0), ZCASH_NOT_CANONICAL);
    put_q(c);
    cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, c, 0), ZCASH_NOT_CANONICAL);
    put_q(u2 + 144);
    cr_assert_eq(bls12381_g2_from_zcash(&q2, u2, 0), ZCASH_NOT_CANONICAL);
}

Test(zcash, off_the_curve)
{
    bls12381_g1_affine_t p, q;
    bls12381_g2_affine_t p2, q2;
    uint8_t u[96], u2[192];
    rand_g1(&p);
    rand_g2(&p2);
    bls12381_g1_to_zcash(u, &p);
    bls12381_g2_to_zcash(u2, &p2);
    u[95] ^= 1;
    cr_assert_eq(bls12381_g1_from_zcash(&q, u, 0), ZCASH_NOT_ON_CURVE);
    u2[100] ^= 4;
    cr_assert_eq(bls12381_g2_from_zcash(&q2, u2, 0), ZCASH_NOT_ON_CURVE);

    /* compressed: an x with no y (x^3 + b not a square) */
    int found1 = 0, found2 = 0;
    for (uint64_t x = 1; x < 64 && !(found1 && found2); x++) {
        uint8_t c[96] = { 0 };
        bls12381_fp_t xf, rhs, y;
        bls12381_fp_from_u64(&xf, x);
        bls12381_fp_sqr(&rhs, &xf);
        bls12381_fp_mul(&rhs, &rhs, &xf);
        bls12381_fp_add(&rhs, &rhs, &bls12381_g1_b);
        c[0] = 0x80;
        c[47] = (uint8_t)x;
        if (!bls12381_fp_sqrt(&y, &rhs)) {
            cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, c, 0), ZCASH_NOT_ON_CURVE);
            found1 = 1;
        }
        c[47] = 0;
        c[95] = (uint8_t)x; /* x = x + 0u */
        bls12381_fp2_t x2, r2, y2;
        bls12381_fp2_set_zero(&x2);
        x2.c0 = xf;
        bls12381_fp2_sqr(&r2, &x2);
        bls12381_fp2_mul(&r2, &r2, &x2);
        bls12381_fp2_add(&r2, &r2, &bls12381_g2_b);
        if (!bls12381_fp2_sqrt(&y2, &r2)) {
            cr_assert_eq(bls12381_g2_from_zcash_compressed(&q2, c, 0), ZCASH_NOT_ON_CURVE);
            found2 = 1;
        }
    }
    cr_assert(found1 && found2);
}

Test(zcash, outside_the_subgroup)
{
    /* points with small x on the curve: nearly all are outside the order-r
     * subgroup (cofactors ~2^125 and ~2^381); the slow r*P test decides */
    int done1 = 0, done2 = 0;
    for (uint64_t x = 1; x < 64 && !(done1 && done2); x++) {
        uint8_t c[96] = { 0 }, u[192];
        bls12381_g1_affine_t p, q;
        bls12381_g2_affine_t p2, q2;
        c[0] = 0x80;
        c[47] = (uint8_t)x;
        if (!done1 && bls12381_g1_from_zcash_compressed(&p, c, 0) == ZCASH_OK) {
            cr_assert(bls12381_g1_affine_is_on_curve(&p));
            cr_assert_eq(bls12381_g1_in_subgroup_slow(&p), 0);
            cr_assert_eq(bls12381_g1_from_zcash_compressed(&q, c, 1), ZCASH_NOT_IN_SUBGROUP);
            bls12381_g1_to_zcash(u, &p);
            cr_assert_eq(bls12381_g1_from_zcash(&q, u, 0), ZCASH_OK);
            cr_assert_eq(bls12381_g1_from_zcash(&q, u, 1), ZCASH_NOT_IN_SUBGROUP);
            done1 = 1;
        }
        c[47] = 0;
        c[95] = (uint8_t)x;
        if (!done2 && bls12381_g2_from_zcash_compressed(&p2, c, 0) == ZCASH_OK) {
            cr_assert(bls12381_g2_affine_is_on_curve(&p2));
            cr_assert_eq(bls12381_g2_in_subgroup_slow(&p2), 0);
            cr_assert_eq(bls12381_g2_from_zcash_compressed(&q2, c, 1), ZCASH_NOT_IN_SUBGROUP);
            bls12381_g2_to_zcash(u, &p2);
            cr_assert_eq(bls12381_g2_from_zcash(&q2, u, 0), ZCASH_OK);
            cr_assert_eq(bls12381_g2_from_zcash(&q2, u, 1), ZCASH_NOT_IN_SUBGROUP);
            done2 = 1;
        }
    }
    cr_assert(done1 && done2);
}

Test(zcash, square_roots)
{
    for (int i = 0; i < 16; i++) {
        bls12381_fp_t a, a2, r, na;
        bls12381_fp_from_u64(&a, zc_rand());
        bls12381_fp_mul(&a, &a, &a);
        bls12381_fp_add(&a, &a, &bls12381_g1_b); /* something < q, Montgomery */
        bls12381_fp_sqr(&a2, &a);
        cr_assert(bls12381_fp_sqrt(&r, &a2));
        bls12381_fp_neg(&na, &a);
        cr_assert(bls12381_fp_eq(&r, &a) || bls12381_fp_eq(&r, &na));
        /* -1 is not a square (q = 3 mod 4), so -a^2 is not either */
        bls12381_fp_neg(&a2, &a2);
        cr_assert_eq(bls12381_fp_sqrt(&r, &a2), 0);

        bls12381_fp2_t b, b2, s, nb;
        b.c0 = a;
        bls12381_fp_from_u64(&b.c1, zc_rand());
        bls12381_fp2_sqr(&b2, &b);
        cr_assert(bls12381_fp2_sqrt(&s, &b2));
        bls12381_fp2_neg(&nb, &b);
        cr_assert(bls12381_fp2_eq(&s, &b) || bls12381_fp2_eq(&s, &nb));
    }
    /* u^2 = -1: sqrt(-1) = +-u */
    bls12381_fp2_t m1, s;
    bls12381_fp2_set_one(&m1);
    bls12381_fp2_neg(&m1, &m1);
    cr_assert(bls12381_fp2_sqrt(&s, &m1));
    cr_assert(bls12381_fp_is_zero(&s.c0));
}
