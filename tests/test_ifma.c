/*
 * test_ifma.c - the AVX-512 IFMA kernels of common/fp381_ifma.c:
 *
 *   mul_x8_gmp     bls12381_fp_mul_x8_ifma against GMP (a*b*2^-384 mod p)
 *                  on 4000 groups of eight: random values < p and edge
 *                  values (0, 1, 2, p-1, p-2, (p-1)/2, R mod p, 2^52-1,
 *                  2^364, 2^380, every 52-bit digit all ones where < p),
 *                  outputs fully reduced; bls12381_fp_mul_x8 (the
 *                  dispatcher) gives the same limbs
 *   add_batch      bls12381_g1_add_batch_ifma (the G1 MSM's batch-affine
 *                  additions in eight lanes) against the Jacobian mixed
 *                  addition (curve_tmpl.h) entry by entry: n = 1..40 and
 *                  257, random points (random multiples of the generator),
 *                  with doublings (P = B) and cancellations (P = -B)
 *   add_batch_g2   the same for bls12381_g2_add_batch_ifma (Fp2 lanes)
 *   on_curve_x8    bls12381_g1_on_curve_x8_ifma against
 *                  bls12381_g1_affine_is_on_curve, mask bit by bit
 *   dispatch       fp381_ifma_enabled() is supported && $SLOTPROVE_NO_IFMA
 *                  unset or empty
 *
 * Where the CPU lacks AVX-512 IFMA the kernel tests are skipped (and say
 * so); the MSM suites cover the dispatch either way (make unit runs the
 * BLS12-381 G1 MSM suite again with SLOTPROVE_NO_IFMA=1).
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fp381_ifma.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(ifma, .timeout = 300);

static uint64_t ti_state = 0x2545f4914f6cdd1dULL;

static uint64_t ti_rand64(void)
{
    uint64_t x = ti_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ti_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void ti_to_mpz(mpz_t z, const bls12381_fp_t *a)
{
    mpz_import(z, 6, -1, sizeof(uint64_t), 0, 0, a->l);
}

static void ti_from_mpz(bls12381_fp_t *a, const mpz_t z)
{
    size_t cnt = 0;
    memset(a->l, 0, sizeof(a->l));
    cr_assert(mpz_sizeinbase(z, 2) <= 384);
    mpz_export(a->l, &cnt, -1, sizeof(uint64_t), 0, 0, z);
}

/* a random value < p (limbs, no form conversion) */
static void ti_rand_fp(bls12381_fp_t *a, const mpz_t p)
{
    mpz_t z;
    mpz_init(z);
    for (int i = 0; i < 6; i++)
        a->l[i] = ti_rand64();
    ti_to_mpz(z, a);
    mpz_mod(z, z, p);
    ti_from_mpz(a, z);
    mpz_clear(z);
}

Test(ifma, dispatch)
{
    const char *no = getenv("SLOTPROVE_NO_IFMA");
    int want = fp381_ifma_supported() && (!no || !*no);
    cr_assert_eq(fp381_ifma_enabled(), want, "enabled %d, supported %d, SLOTPROVE_NO_IFMA=%s",
                 fp381_ifma_enabled(), fp381_ifma_supported(), no ? no : "(unset)");
}

Test(ifma, mul_x8_gmp, .timeout = 60)
{
    if (!fp381_ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    mpz_t p, Rinv, za, zb, zr, e;
    mpz_inits(p, Rinv, za, zb, zr, e, NULL);
    ti_to_mpz(p, &bls12381_fp_modulus);
    mpz_setbit(Rinv, 384);
    cr_assert(mpz_invert(Rinv, Rinv, p));
    /* edge values */
    enum { NEDGE = 20 };
    bls12381_fp_t edge[NEDGE];
    int ne = 0;
    mpz_set_ui(e, 0), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 1), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 2), ti_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 1), ti_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 2), ti_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 1), mpz_fdiv_q_2exp(e, e, 1), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 384), mpz_mod(e, e, p), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 52), mpz_sub_ui(e, e, 1), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 364), ti_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 380), ti_from_mpz(&edge[ne++], e);
    for (int j = 0; j < 8; j++) { /* digit j all ones */
        mpz_set_ui(e, 0);
        for (int b = 52 * j; b < 52 * j + 52 && b < 384; b++)
            mpz_setbit(e, (mp_bitcnt_t)b);
        if (mpz_cmp(e, p) < 0)
            ti_from_mpz(&edge[ne++], e);
    }
    cr_assert_leq(ne, NEDGE);
    long bad = 0;
    for (int it = 0; it < 4000; it++) {
        bls12381_fp_t a[8], b[8], r[8], r2[8];
        for (int k = 0; k < 8; k++) {
            ti_rand_fp(&a[k], p);
            ti_rand_fp(&b[k], p);
            if (it < ne * ne / 8 + 1) { /* all edge pairs first */
                int q = it * 8 + k;
                if (q < ne * ne) {
                    a[k] = edge[q / ne];
                    b[k] = edge[q % ne];
                }
            } else if (ti_rand64() % 4 == 0) {
                a[k] = edge[ti_rand64() % (unsigned)ne];
            }
        }
        bls12381_fp_mul_x8_ifma(r, a, b);
        bls12381_fp_mul_x8(r2, a, b);
        for (int k = 0; k < 8; k++) {
            ti_to_mpz(za, &a[k]);
            ti_to_mpz(zb, &b[k]);
            mpz_mul(zr, za, zb);
            mpz_mul(zr, zr, Rinv);
            mpz_mod(zr, zr, p);
            ti_to_mpz(e, &r[k]);
            if (mpz_cmp(e, zr) != 0 && bad++ < 5)
                cr_log_error("group %d lane %d: IFMA product differs from GMP", it, k);
            cr_assert(memcmp(&r[k], &r2[k], sizeof(r[k])) == 0,
                      "group %d lane %d: bls12381_fp_mul_x8 differs from the kernel", it, k);
        }
    }
    cr_assert_eq(bad, 0, "%ld IFMA products differ from GMP", bad);
    /* in place: r = a (aliasing) */
    bls12381_fp_t a[8], b[8], r[8];
    for (int k = 0; k < 8; k++)
        ti_rand_fp(&a[k], p), ti_rand_fp(&b[k], p);
    for (int k = 0; k < 8; k++)
        bls12381_fp_mul(&r[k], &a[k], &b[k]);
    bls12381_fp_mul_x8_ifma(a, a, b);
    cr_assert(memcmp(a, r, sizeof(r)) == 0, "in-place product differs");
    mpz_clears(p, Rinv, za, zb, zr, e, NULL);
}

/* n random affine points, entries of add_batch: kind 0 chord (random P),
 * 1 doubling (P a copy of B), 2 cancellation (P = -B). */
#define TI_BATCH_CASE(G, F)                                                           \
static void ti_batch_case_##G(unsigned n, int seed_kinds)                             \
{                                                                                     \
    G##_jac_t gen;                                                                    \
    G##_from_affine(&gen, &G##_generator);                                            \
    G##_affine_t *B = calloc(n, sizeof(*B)), *P = calloc(n, sizeof(*P));              \
    G##_affine_t *want = calloc(n, sizeof(*want));                                    \
    G##_affine_t **dst = calloc(n, sizeof(*dst));                                     \
    const G##_affine_t **src = calloc(n, sizeof(*src));                               \
    uint8_t *set = calloc(n, 1), **dset = calloc(n, sizeof(*dset)), *want_set = calloc(n, 1);\
    F##_t *den = calloc(n, sizeof(*den)), *pre = calloc(n, sizeof(*pre));             \
    cr_assert(B && P && want && dst && src && set && dset && want_set && den && pre); \
    for (unsigned i = 0; i < n; i++) {                                                \
        G##_jac_t J;                                                                  \
        uint64_t s1[4] = { ti_rand64(), ti_rand64(), ti_rand64(), ti_rand64() >> 3 }; \
        uint64_t s2[4] = { ti_rand64(), ti_rand64(), ti_rand64(), ti_rand64() >> 3 }; \
        G##_mul_scalar(&J, &gen, s1, 4);                                              \
        G##_to_affine(&B[i], &J);                                                     \
        unsigned kind = seed_kinds ? (unsigned)(ti_rand64() % 5) : 0; /* 3, 4: chord */\
        if (kind == 1) {                                                              \
            P[i] = B[i];                                                              \
        } else if (kind == 2) {                                                       \
            P[i].x = B[i].x;                                                          \
            F##_neg(&P[i].y, &B[i].y);                                                \
        } else {                                                                      \
            G##_mul_scalar(&J, &gen, s2, 4);                                          \
            G##_to_affine(&P[i], &J);                                                 \
        }                                                                             \
        G##_from_affine(&J, &B[i]); /* want = B + P, Jacobian */                      \
        G##_add_affine(&J, &J, &P[i]);                                                \
        want_set[i] = !G##_is_inf(&J);                                                \
        if (want_set[i])                                                              \
            G##_to_affine(&want[i], &J);                                              \
        set[i] = 1;                                                                   \
        dst[i] = &B[i];                                                               \
        src[i] = &P[i];                                                               \
        dset[i] = &set[i];                                                            \
    }                                                                                 \
    G##_add_batch_ifma(dst, dset, src, n, den, pre);                                  \
    for (unsigned i = 0; i < n; i++) {                                                \
        cr_assert_eq(set[i], want_set[i], "n %u entry %u: set %d, want %d", n, i, set[i],\
                     want_set[i]);                                                    \
        if (want_set[i])                                                              \
            cr_assert(G##_affine_eq(&B[i], &want[i]),                                 \
                      "n %u entry %u: the lanes' sum differs from the Jacobian one", n, i);\
    }                                                                                 \
    free(B), free(P), free(want), free(dst), free(src), free(set), free(dset);        \
    free(want_set), free(den), free(pre);                                             \
}                                                                                     \

TI_BATCH_CASE(bls12381_g1, bls12381_fp)
TI_BATCH_CASE(bls12381_g2, bls12381_fp2)

/* bls12381_g1_add_batch_ifma (eight lanes, one shared inversion) against
 * the Jacobian mixed addition, entry by entry: batch sizes 1..40 (lanes
 * partly filled) and 257, chords only and chords mixed with doublings and
 * cancellations. */
Test(ifma, add_batch, .timeout = 60)
{
    if (!fp381_ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    for (unsigned n = 1; n <= 40; n++) {
        ti_batch_case_bls12381_g1(n, 0);
        ti_batch_case_bls12381_g1(n, 1);
    }
    ti_batch_case_bls12381_g1(257, 0);
    ti_batch_case_bls12381_g1(257, 1);
}

/* bls12381_g2_add_batch_ifma, as add_batch for G1. */
Test(ifma, add_batch_g2, .timeout = 60)
{
    if (!fp381_ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    for (unsigned n = 1; n <= 40; n += 3) {
        ti_batch_case_bls12381_g2(n, 0);
        ti_batch_case_bls12381_g2(n, 1);
    }
    ti_batch_case_bls12381_g2(129, 1);
}

/* bls12381_g1_on_curve_x8_ifma against bls12381_g1_affine_is_on_curve on
 * groups mixing points on the curve, points with y changed in one limb,
 * (0, 0) and (0, y): the mask bit for bit. */
Test(ifma, on_curve_x8, .timeout = 60)
{
    if (!fp381_ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    bls12381_g1_jac_t G;
    bls12381_g1_from_affine(&G, &bls12381_g1_generator);
    int seen_off = 0, seen_on = 0;
    for (int it = 0; it < 300; it++) {
        bls12381_g1_affine_t pt[8];
        const bls12381_g1_affine_t *pp[8];
        unsigned want = 0;
        for (int k = 0; k < 8; k++) {
            bls12381_g1_jac_t J;
            uint64_t s[4] = { ti_rand64(), ti_rand64(), ti_rand64(), ti_rand64() >> 3 };
            bls12381_g1_mul_scalar(&J, &G, s, 4);
            bls12381_g1_to_affine(&pt[k], &J);
            switch (ti_rand64() % 5) {
            case 0: /* y + 1 (Montgomery one): off the curve */
                bls12381_fp_add(&pt[k].y, &pt[k].y, &bls12381_fp_mont_one);
                break;
            case 1:
                bls12381_g1_affine_set_inf(&pt[k]);
                break;
            case 2: /* (0, y) */
                bls12381_fp_set_zero(&pt[k].x);
                break;
            default:
                break;
            }
            if (bls12381_g1_affine_is_on_curve(&pt[k]))
                want |= 1u << k, seen_on++;
            else
                seen_off++;
            pp[k] = &pt[k];
        }
        unsigned got = bls12381_g1_on_curve_x8_ifma(pp);
        cr_assert_eq(got, want, "group %d: mask %#x, want %#x", it, got, want);
    }
    cr_assert(seen_on > 100 && seen_off > 100);
}
