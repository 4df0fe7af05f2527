/*
 * test_bellperson_proof.c - bellperson's 192-byte proof (common/
 * bellperson_proof.h): random A, B, C encoded and decoded equal the direct
 * conversion to standard form; the byte layout is A (48) || B (96) || C (48),
 * each the compressed zcash encoding (checked against the encoders one by
 * one); a bad flag, an off-curve x and a point outside the subgroup are
 * named by proof index and point.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bellperson_proof.h"
#include "bls12381_pairing.h"
#include "bls12381_zcash.h"

static void pts(bls12381_g1_affine_t *a, bls12381_g2_affine_t *b, bls12381_g1_affine_t *c)
{
    uint64_t k1[2] = { 0x1234567890abcdefULL, 0x0fedcba987654321ULL }, k2[2] = { 99, 7 },
             k3[2] = { 0xdeadbeefULL, 0xfeedULL };
    bls12381_g1_jac_t j;
    bls12381_g2_jac_t j2;
    bls12381_g1_mul_scalar_affine(&j, &bls12381_g1_generator, k1, 2);
    bls12381_g1_to_affine(a, &j);
    bls12381_g2_mul_scalar_affine(&j2, &bls12381_g2_generator, k2, 2);
    bls12381_g2_to_affine(b, &j2);
    bls12381_g1_mul_scalar_affine(&j, &bls12381_g1_generator, k3, 2);
    bls12381_g1_to_affine(c, &j);
}

Test(bellperson_proof, layout_and_round_trip)
{
    bls12381_g1_affine_t a, c;
    bls12381_g2_affine_t b;
    pts(&a, &b, &c);
    uint8_t p[BP_PROOF_BYTES], x[96];
    bp_proof_encode(p, &a, &b, &c);
    bls12381_g1_to_zcash_compressed(x, &a);
    cr_assert(memcmp(p, x, 48) == 0);
    bls12381_g2_to_zcash_compressed(x, &b);
    cr_assert(memcmp(p + 48, x, 96) == 0);
    bls12381_g1_to_zcash_compressed(x, &c);
    cr_assert(memcmp(p + 144, x, 48) == 0);
    struct groth16_proof got, want;
    struct sp_err e = { "" };
    cr_assert_eq(bp_proof_decode(&got, p, "p.bin", 0, &e), 0, "%s", e.msg);
    bp_proof_to_groth16(&want, &a, &b, &c);
    cr_assert(memcmp(&got, &want, sizeof got) == 0);
    cr_assert_eq(got.curve, CURVE_BLS12381);
}

Test(bellperson_proof, bad_points_named)
{
    bls12381_g1_affine_t a, c;
    bls12381_g2_affine_t b;
    pts(&a, &b, &c);
    uint8_t p[BP_PROOF_BYTES], t[BP_PROOF_BYTES];
    bp_proof_encode(p, &a, &b, &c);
    struct groth16_proof g;
    struct sp_err e = { "" };
    memcpy(t, p, sizeof t);
    t[48] &= 0x7f; /* B without its compressed flag */
    cr_assert_eq(bp_proof_decode(&g, t, "p.bin", 3, &e), -SP_EFORMAT);
    cr_assert(strstr(e.msg, "p.bin: proof 3: B: compression flag"), "%s", e.msg);
    /* C: an x with no point, or one outside the subgroup */
    int seen_curve = 0, seen_sub = 0;
    for (unsigned v = 1; v < 64 && !(seen_curve && seen_sub); v++) {
        memcpy(t, p, sizeof t);
        memset(t + 144, 0, 48);
        t[144] = 0x80;
        t[191] = (uint8_t)v;
        int rc = bp_proof_decode(&g, t, "p.bin", 0, &e);
        cr_assert_eq(rc, -SP_ERANGE);
        if (strstr(e.msg, "proof 0: C: not on the curve"))
            seen_curve = 1;
        else if (strstr(e.msg, "proof 0: C: not in the prime-order subgroup"))
            seen_sub = 1;
        else
            cr_assert(0, "%s", e.msg);
    }
    cr_assert(seen_curve && seen_sub);
}
