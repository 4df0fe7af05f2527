/*
 * test_ifma_bn254.c - the BN254 AVX-512 IFMA kernels of common/fp254_ifma.c:
 *
 *   mul_x8_gmp   bn254_fp_mul_x8_ifma against GMP (a*b*2^-256 mod p) on
 *                4000 groups of eight: random values < p and edge values
 *                (0, 1, 2, p-1, p-2, (p-1)/2, R mod p, 2^52-1, 2^208,
 *                2^253, 2^254 - 1 - k below p's top, every 52-bit digit
 *                all ones where < p), outputs fully reduced;
 *                bn254_fp_mul_x8 (the dispatcher) gives the same limbs,
 *                and r may alias a
 *   add_batch    bn254_g1_add_batch_ifma (the G1 MSM's batch-affine
 *                additions in eight lanes) against the Jacobian mixed
 *                addition (curve_tmpl.h) entry by entry: n = 1..40, 1024
 *                (16 and 17 among them: the smallest the MSM hands it),
 *                random points with doublings (P = B) and cancellations
 *                (P = -B), and batches of only doublings / cancellations
 *   add_batch_g2 the same for bn254_g2_add_batch_ifma (Fp2 lanes): n = 1..40
 *                in steps of 3, 16 (only doublings), 17, 1024
 *   on_curve_x8  bn254_g1_on_curve_x8_ifma (the key check's eight curve
 *                equations) against bn254_g1_affine_is_on_curve, mask bit
 *                by bit
 *   p52          the digits of p (fp254_p52) against GMP
 *
 * Where the CPU lacks AVX-512 IFMA the kernel tests are skipped (and say
 * so); make unit runs the BN254 G1 MSM suite again with SLOTPROVE_NO_IFMA=1
 * so both paths of the MSM are checked.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fp254_ifma.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(ifma_bn254, .timeout = 300);

static uint64_t tb_state = 0x9e3779b97f4a7c15ULL;

static uint64_t tb_rand64(void)
{
    uint64_t x = tb_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    tb_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void tb_to_mpz(mpz_t z, const bn254_fp_t *a)
{
    mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, a->l);
}

static void tb_from_mpz(bn254_fp_t *a, const mpz_t z)
{
    size_t cnt = 0;
    memset(a->l, 0, sizeof(a->l));
    cr_assert(mpz_sizeinbase(z, 2) <= 256);
    mpz_export(a->l, &cnt, -1, sizeof(uint64_t), 0, 0, z);
}

/* a random value < p (limbs, no form conversion) */
static void tb_rand_fp(bn254_fp_t *a, const mpz_t p)
{
    mpz_t z;
    mpz_init(z);
    for (int i = 0; i < 4; i++)
        a->l[i] = tb_rand64();
    tb_to_mpz(z, a);
    mpz_mod(z, z, p);
    tb_from_mpz(a, z);
    mpz_clear(z);
}

Test(ifma_bn254, mul_x8_gmp, .timeout = 60)
{
    if (!ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    mpz_t p, Rinv, za, zb, zr, e;
    mpz_inits(p, Rinv, za, zb, zr, e, NULL);
    tb_to_mpz(p, &bn254_fp_modulus);
    mpz_setbit(Rinv, 256);
    cr_assert(mpz_invert(Rinv, Rinv, p));
    enum { NEDGE = 24 };
    bn254_fp_t edge[NEDGE];
    int ne = 0;
    mpz_set_ui(e, 0), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 1), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 2), tb_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 1), tb_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 2), tb_from_mpz(&edge[ne++], e);
    mpz_sub_ui(e, p, 1), mpz_fdiv_q_2exp(e, e, 1), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 256), mpz_mod(e, e, p), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 52), mpz_sub_ui(e, e, 1), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 208), tb_from_mpz(&edge[ne++], e);
    mpz_set_ui(e, 0), mpz_setbit(e, 253), tb_from_mpz(&edge[ne++], e);
    /* near 2^254 (p ~ 0.76 * 2^254): the largest values with p's top bits */
    mpz_set_ui(e, 0), mpz_setbit(e, 253), mpz_setbit(e, 252), mpz_sub_ui(e, e, 1),
        tb_from_mpz(&edge[ne++], e); /* 2^253 + 2^252 - 1 < p */
    mpz_sub_ui(e, p, 1), mpz_fdiv_q_2exp(e, e, 208), mpz_mul_2exp(e, e, 208),
        tb_from_mpz(&edge[ne++], e); /* p's top digit, the rest zero */
    mpz_fdiv_q_2exp(e, p, 208), mpz_mul_2exp(e, e, 208), mpz_sub_ui(e, e, 1),
        tb_from_mpz(&edge[ne++], e); /* p's top digit - 1, the rest all ones */
    for (int j = 0; j < 5; j++) { /* digit j all ones */
        mpz_set_ui(e, 0);
        for (int b = 52 * j; b < 52 * j + 52 && b < 256; b++)
            mpz_setbit(e, (mp_bitcnt_t)b);
        if (mpz_cmp(e, p) < 0)
            tb_from_mpz(&edge[ne++], e);
    }
    cr_assert_leq(ne, NEDGE);
    for (int i = 0; i < ne; i++) {
        tb_to_mpz(e, &edge[i]);
        cr_assert(mpz_cmp(e, p) < 0, "edge value %d is not below p", i);
    }
    long bad = 0;
    for (int it = 0; it < 4000; it++) {
        bn254_fp_t a[8], b[8], r[8], r2[8];
        for (int k = 0; k < 8; k++) {
            tb_rand_fp(&a[k], p);
            tb_rand_fp(&b[k], p);
            if (it < ne * ne / 8 + 1) { /* all edge pairs first */
                int q = it * 8 + k;
                if (q < ne * ne) {
                    a[k] = edge[q / ne];
                    b[k] = edge[q % ne];
                }
            } else if (tb_rand64() % 4 == 0) {
                a[k] = edge[tb_rand64() % (unsigned)ne];
            }
        }
        bn254_fp_mul_x8_ifma(r, a, b);
        bn254_fp_mul_x8(r2, a, b);
        for (int k = 0; k < 8; k++) {
            tb_to_mpz(za, &a[k]);
            tb_to_mpz(zb, &b[k]);
            mpz_mul(zr, za, zb);
            mpz_mul(zr, zr, Rinv);
            mpz_mod(zr, zr, p);
            tb_to_mpz(e, &r[k]);
            if (mpz_cmp(e, zr) != 0 && bad++ < 5)
                cr_log_error("group %d lane %d: IFMA product differs from GMP", it, k);
            cr_assert(memcmp(&r[k], &r2[k], sizeof(r[k])) == 0,
                      "group %d lane %d: bn254_fp_mul_x8 differs from the kernel", it, k);
        }
    }
    cr_assert_eq(bad, 0, "%ld IFMA products differ from GMP", bad);
    /* in place: r = a (aliasing) */
    bn254_fp_t a[8], b[8], r[8];
    for (int k = 0; k < 8; k++)
        tb_rand_fp(&a[k], p), tb_rand_fp(&b[k], p);
    for (int k = 0; k < 8; k++) {
        tb_to_mpz(za, &a[k]), tb_to_mpz(zb, &b[k]);
        mpz_mul(zr, za, zb), mpz_mul(zr, zr, Rinv), mpz_mod(zr, zr, p);
        tb_from_mpz(&r[k], zr);
    }
    bn254_fp_mul_x8_ifma(a, a, b);
    cr_assert(memcmp(a, r, sizeof(r)) == 0, "in-place product differs from GMP");
    mpz_clears(p, Rinv, za, zb, zr, e, NULL);
}

/* One batch of n entries: kinds (bit mask) 1 chord (random P), 2 doubling
 * (P a copy of B), 4 cancellation (P = -B), each entry's kind drawn from
 * the mask. Checks G_add_batch_ifma against B + P in Jacobian
 * coordinates, entry by entry. */
#define TB_BATCH_CASE(G, F)                                                                     \
static void tb_batch_case_##G(unsigned n, unsigned kinds)                                       \
{                                                                                               \
    G##_jac_t gen;                                                                              \
    G##_from_affine(&gen, &G##_generator);                                                      \
    G##_affine_t *B = calloc(n, sizeof(*B)), *P = calloc(n, sizeof(*P));                        \
    G##_affine_t *want = calloc(n, sizeof(*want));                                              \
    G##_affine_t **dst = calloc(n, sizeof(*dst));                                               \
    const G##_affine_t **src = calloc(n, sizeof(*src));                                         \
    uint8_t *set = calloc(n, 1), **dset = calloc(n, sizeof(*dset)), *want_set = calloc(n, 1);   \
    F##_t *den = calloc(n, sizeof(*den)), *pre = calloc(n, sizeof(*pre));                       \
    cr_assert(B && P && want && dst && src && set && dset && want_set && den && pre);           \
    unsigned nk = (unsigned)__builtin_popcount(kinds);                                          \
    for (unsigned i = 0; i < n; i++) {                                                          \
        G##_jac_t J;                                                                            \
        uint64_t s1[4] = { tb_rand64(), tb_rand64(), tb_rand64(), tb_rand64() >> 3 };           \
        uint64_t s2[4] = { tb_rand64(), tb_rand64(), tb_rand64(), tb_rand64() >> 3 };           \
        G##_mul_scalar(&J, &gen, s1, 4);                                                        \
        G##_to_affine(&B[i], &J);                                                               \
        unsigned pick = (unsigned)(tb_rand64() % nk), kind = 0;                                 \
        for (unsigned bit = 1; bit <= 4; bit <<= 1)                                             \
            if ((kinds & bit) && pick-- == 0)                                                   \
                kind = bit;                                                                     \
        if (kind == 2) {                                                                        \
            P[i] = B[i];                                                                        \
        } else if (kind == 4) {                                                                 \
            P[i].x = B[i].x;                                                                    \
            F##_neg(&P[i].y, &B[i].y);                                                          \
        } else {                                                                                \
            G##_mul_scalar(&J, &gen, s2, 4);                                                    \
            G##_to_affine(&P[i], &J);                                                           \
        }                                                                                       \
        G##_from_affine(&J, &B[i]); /* want = B + P, Jacobian */                                \
        G##_add_affine(&J, &J, &P[i]);                                                          \
        want_set[i] = !G##_is_inf(&J);                                                          \
        if (want_set[i])                                                                        \
            G##_to_affine(&want[i], &J);                                                        \
        set[i] = 1;                                                                             \
        dst[i] = &B[i];                                                                         \
        src[i] = &P[i];                                                                         \
        dset[i] = &set[i];                                                                      \
    }                                                                                           \
    G##_add_batch_ifma(dst, dset, src, n, den, pre);                                            \
    for (unsigned i = 0; i < n; i++) {                                                          \
        cr_assert_eq(set[i], want_set[i], "n %u kinds %u entry %u: set %d, want %d", n, kinds,  \
                     i, set[i], want_set[i]);                                                   \
        if (want_set[i])                                                                        \
            cr_assert(G##_affine_eq(&B[i], &want[i]),                                           \
                      "n %u kinds %u entry %u: the lanes' sum differs from the Jacobian one",   \
                      n, kinds, i);                                                             \
    }                                                                                           \
    free(B), free(P), free(want), free(dst), free(src), free(set), free(dset);                  \
    free(want_set), free(den), free(pre);                                                       \
}                                                                                               \

TB_BATCH_CASE(bn254_g1, bn254_fp)
TB_BATCH_CASE(bn254_g2, bn254_fp2)

Test(ifma_bn254, add_batch, .timeout = 120)
{
    if (!ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    for (unsigned n = 1; n <= 40; n++) {
        tb_batch_case_bn254_g1(n, 1);
        tb_batch_case_bn254_g1(n, 7);
    }
    tb_batch_case_bn254_g1(16, 2); /* only doublings */
    tb_batch_case_bn254_g1(17, 4); /* only cancellations */
    tb_batch_case_bn254_g1(17, 6);
    tb_batch_case_bn254_g1(1024, 1);
    tb_batch_case_bn254_g1(1024, 7);
}

/* bn254_g2_add_batch_ifma (Fp2 lanes), as add_batch for G1. */
Test(ifma_bn254, add_batch_g2, .timeout = 120)
{
    if (!ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    for (unsigned n = 1; n <= 40; n += 3) {
        tb_batch_case_bn254_g2(n, 1);
        tb_batch_case_bn254_g2(n, 7);
    }
    tb_batch_case_bn254_g2(16, 2);
    tb_batch_case_bn254_g2(17, 6);
    tb_batch_case_bn254_g2(1024, 7);
}

/* bn254_g1_on_curve_x8_ifma against bn254_g1_affine_is_on_curve on groups
 * mixing points on the curve, points with y + 1, (0, 0) and (0, y): the
 * mask bit for bit. */
Test(ifma_bn254, on_curve_x8, .timeout = 60)
{
    if (!ifma_supported())
        cr_skip_test("this CPU has no AVX-512 IFMA: the kernel cannot run here");
    bn254_g1_jac_t G;
    bn254_g1_from_affine(&G, &bn254_g1_generator);
    int seen_off = 0, seen_on = 0;
    for (int it = 0; it < 300; it++) {
        bn254_g1_affine_t pt[8];
        const bn254_g1_affine_t *pp[8];
        unsigned want = 0;
        for (int k = 0; k < 8; k++) {
            bn254_g1_jac_t J;
            uint64_t s[4] = { tb_rand64(), tb_rand64(), tb_rand64(), tb_rand64() >> 3 };
            bn254_g1_mul_scalar(&J, &G, s, 4);
            bn254_g1_to_affine(&pt[k], &J);
            switch (tb_rand64() % 5) {
            case 0: /* y + 1 (Montgomery one): off the curve */
                bn254_fp_add(&pt[k].y, &pt[k].y, &bn254_fp_mont_one);
                break;
            case 1:
                bn254_g1_affine_set_inf(&pt[k]);
                break;
            case 2: /* (0, y) */
                bn254_fp_set_zero(&pt[k].x);
                break;
            default:
                break;
            }
            if (bn254_g1_affine_is_on_curve(&pt[k]))
                want |= 1u << k, seen_on++;
            else
                seen_off++;
            pp[k] = &pt[k];
        }
        unsigned got = bn254_g1_on_curve_x8_ifma(pp);
        cr_assert_eq(got, want, "group %d: mask %#x, want %#x", it, got, want);
    }
    cr_assert(seen_on > 100 && seen_off > 100);
}

/* fp254_p52 (filled before main) against p's digits from GMP. */
Test(ifma_bn254, p52)
{
#if IFMA_X86
    extern uint64_t fp254_p52[5];
    mpz_t p, d;
    mpz_inits(p, d, NULL);
    tb_to_mpz(p, &bn254_fp_modulus);
    for (int j = 0; j < 5; j++) {
        mpz_fdiv_q_2exp(d, p, 52 * (mp_bitcnt_t)j);
        mpz_fdiv_r_2exp(d, d, 52);
        cr_assert_eq(fp254_p52[j], mpz_get_ui(d), "digit %d", j);
    }
    mpz_clears(p, d, NULL);
#else
    cr_skip_test("not x86-64: no IFMA kernels");
#endif
}
