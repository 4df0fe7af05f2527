/*
 * test_msm_split.c - the G1 MSM in pieces (msm.h: X_g1_msm_split_begin,
 * _tasks, _run, _end), bn254 and bls12381, against the naive sum
 * Σ k_i·P_i (_mul_scalar + _add):
 *
 *   sizes      n = 0, 1, 2, 17, 2000; points P_i = P_0 + i·Q (a chain of
 *              additions from random multiples of the generator) with
 *              infinities at every 7th index; scalars 0, 1, r − 1, random
 *              with the top bit set, random, small; windows planned for
 *              1, 2 and 16 threads (16: several point chunks per window)
 *   order      the tasks run one at a time in reverse order, and all at
 *              once from two threads (parallel_for, one task per call)
 *
 * Randomness: fixed-seed xorshift64*.
 */
#ifndef MS_G /* ====================== first pass: common part and tests */

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msm.h"
#include "parallel.h"

#define MS_CAT2(a, b) a##b
#define MS_CAT(a, b) MS_CAT2(a, b)

static uint64_t ms_state;

static uint64_t ms_rand64(void)
{
    ms_state ^= ms_state >> 12;
    ms_state ^= ms_state << 25;
    ms_state ^= ms_state >> 27;
    return ms_state * 0x2545F4914F6CDD1DULL;
}

static void *ms_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    cr_assert(p != NULL, "out of memory (%zu bytes)", bytes);
    return p;
}

#define MS_G bn254_g1
#define MS_FP bn254_fp
#define MS_FR bn254_fr
#define MS_NAME "bn254_g1"
#include "test_msm_split.c"
#undef MS_G
#undef MS_FP
#undef MS_FR
#undef MS_NAME

#define MS_G bls12381_g1
#define MS_FP bls12381_fp
#define MS_FR bls12381_fr
#define MS_NAME "bls12381_g1"
#include "test_msm_split.c"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(msm_split, .timeout = 300);
#undef MS_G
#undef MS_FP
#undef MS_FR
#undef MS_NAME

Test(msm_split, bn254_g1, .timeout = 120)
{
    ms_state = 0x5117;
    ms_bn254_g1_check();
}

Test(msm_split, bls12381_g1, .timeout = 120)
{
    ms_state = 0x5118;
    ms_bls12381_g1_check();
}

#else /* ============================= per-group part (MS_G = group prefix) */

#define JAC_T MS_CAT(MS_G, _jac_t)
#define AFF_T MS_CAT(MS_G, _affine_t)
#define FP_T MS_CAT(MS_FP, _t)
#define SPLIT_T struct MS_CAT(MS_G, _msm_split)
#define G_(name) MS_CAT(MS_G, _##name)
#define FR_(name) MS_CAT(MS_FR, _##name)
#define H(name) MS_CAT(ms_, MS_CAT(MS_G, _##name))

/* Random k < r as 4 limbs; top: force the top bit of r's length. */
static void H(rand_fr)(uint64_t l[4], int top)
{
    const uint64_t hi = FR_(modulus).l[3];
    unsigned topbit = 63 - (unsigned)__builtin_clzll(hi);
    uint64_t mask = ~0ULL >> (63 - topbit);
    do {
        for (int i = 0; i < 4; i++)
            l[i] = ms_rand64();
        l[3] &= mask;
        if (top)
            l[3] |= 1ULL << topbit;
    } while (!FR_(is_canonical)(l));
}

/* Scalar i of the test's mix, 4 limbs (little-endian host = the bytes). */
static void H(scalar)(uint64_t l[4], size_t i)
{
    memset(l, 0, 32);
    switch (i % 6) {
    case 0: /* 0 */
        break;
    case 1: /* 1 */
        l[0] = 1;
        break;
    case 2: /* r − 1 */
        memcpy(l, FR_(modulus).l, 32);
        l[0] -= 1;
        break;
    case 3:
        H(rand_fr)(l, 1);
        break;
    case 4:
        H(rand_fr)(l, 0);
        break;
    default: /* small */
        l[0] = ms_rand64() & 0xffff;
    }
}

struct H(two) {
    SPLIT_T *s;
};

static void H(run_task)(void *arg, size_t b, size_t e)
{
    struct H(two) *t = arg;
    G_(msm_split_run)(t->s, b, e);
}

/* Σ over the split API, planned for nthreads; mode 0: tasks one at a time
 * in reverse order, 1: from two threads at once. */
static void H(split)(JAC_T *ret, const AFF_T *pts, const uint64_t *sc, size_t n,
                     unsigned nthreads, int mode)
{
    SPLIT_T *s;
    int rc = G_(msm_split_begin)(&s, pts, sc, n, nthreads);
    cr_assert(rc == 0, "%s split begin n = %zu: %d", MS_NAME, n, rc);
    size_t T = G_(msm_split_tasks)(s);
    cr_assert(n == 0 ? T == 0 : T > 0, "%s split n = %zu: %zu tasks", MS_NAME, n, T);
    if (mode == 0) {
        for (size_t t = T; t-- > 0;)
            G_(msm_split_run)(s, t, t + 1);
    } else {
        struct H(two) two = { s };
        parallel_for(T, 1, 2, H(run_task), &two);
    }
    G_(set_inf)(ret);
    rc = G_(msm_split_end)(ret, s);
    cr_assert(rc == 0, "%s split end n = %zu: %d", MS_NAME, n, rc);
}

static void H(check)(void)
{
    const size_t N = 2000;
    AFF_T *pts = ms_alloc(N * sizeof(AFF_T));
    JAC_T *jac = ms_alloc(N * sizeof(JAC_T));
    FP_T *scratch = ms_alloc(N * sizeof(FP_T));
    uint64_t *sc = ms_alloc(N * 32), k[4];
    JAC_T g, q;
    G_(from_affine)(&g, &G_(generator));
    H(rand_fr)(k, 0);
    G_(mul_scalar)(&jac[0], &g, k, 4);
    H(rand_fr)(k, 0);
    G_(mul_scalar)(&q, &g, k, 4);
    for (size_t i = 1; i < N; i++)
        G_(add)(&jac[i], &jac[i - 1], &q);
    G_(batch_to_affine)(pts, jac, N, scratch);
    for (size_t i = 0; i < N; i++) {
        if (i % 7 == 3)
            memset(&pts[i], 0, sizeof(AFF_T));
        H(scalar)(sc + 4 * i, i);
    }
    /* prefix sums of k_i·P_i, naive */
    JAC_T *prefix = ms_alloc((N + 1) * sizeof(JAC_T));
    G_(set_inf)(&prefix[0]);
    for (size_t i = 0; i < N; i++) {
        JAC_T p, t;
        prefix[i + 1] = prefix[i];
        if (G_(affine_is_inf)(&pts[i]))
            continue;
        G_(from_affine)(&p, &pts[i]);
        G_(mul_scalar)(&t, &p, sc + 4 * i, 4);
        G_(add)(&prefix[i + 1], &prefix[i], &t);
    }
    static const size_t sizes[] = { 0, 1, 2, 17, 2000 };
    static const unsigned threads[] = { 1, 2, 16 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
            for (int mode = 0; mode < 2; mode++) {
                JAC_T got;
                H(split)(&got, pts, sc, sizes[si], threads[ti], mode);
                cr_assert(G_(eq)(&got, &prefix[sizes[si]]),
                          "%s split MSM n = %zu, planned for %u threads, %s: "
                          "differs from the naive sum", MS_NAME, sizes[si],
                          threads[ti], mode ? "two threads" : "reverse order");
            }
    free(prefix);
    free(sc);
    free(scratch);
    free(jac);
    free(pts);
}

#undef JAC_T
#undef AFF_T
#undef FP_T
#undef SPLIT_T
#undef G_
#undef FR_
#undef H

#endif
