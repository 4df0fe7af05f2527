/*
 * bench_cpu.c — times the CPU prover's components on random data of any
 * size, without a key: the NTT stage (three coset LDEs, as a proof does),
 * one G1 MSM with dense scalars (like the H MSM), one G1 MSM with
 * witness-like scalars and one G2 MSM with witness-like scalars.
 *
 *   build/bench_cpu CURVE LOG_N [THREADS [REPS [PARTS]]]
 *     CURVE   bn254 | bls12381
 *     LOG_N   domain size 2^LOG_N (points per MSM), 1..24
 *     THREADS 0 = all CPUs (default)
 *     REPS    repetitions; the minimum time is printed (default 3)
 *     PARTS   letters to run: n (NTT), h (dense G1), w (witness G1),
 *             g (witness G2); default "nhwg"
 *   Prints one line per part: "PART ms" (minimum wall time over REPS), the
 *   process CPU time of that fastest repetition (all threads; on a shared
 *   machine it moves much less than wall time), and a checksum
 *   of each result (the affine x's low limb), so two builds can be compared
 *   on the same inputs.
 *
 * Witness-like scalars: 40% 0, 40% 1, 10% below 2^32, 10% uniform below r —
 * the shape of a circomlib SHA-256 witness (mostly bits, some word sums, a
 * few full field values). Inputs come from a fixed-seed xorshift64*; points
 * are P_i = P_{i−1} + Q from a random start (distinct, valid, in the group).
 * Used by tests/bench_cpu.sh (make bench-cpu) for side-by-side runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msm.h"
#include "ntt.h"
#include "stages.h"

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t rand64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng * 0x2545f4914f6cdd1dULL;
}

/* scalar < r: random limbs with the top limb masked under r's top limb */
static void rand_scalar(uint64_t k[4], const uint64_t r[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = rand64();
    k[3] %= r[3];
}

static void witness_scalar(uint64_t k[4], const uint64_t r[4])
{
    unsigned u = (unsigned)(rand64() % 10);
    memset(k, 0, 32);
    if (u < 4)
        return;
    if (u < 8)
        k[0] = 1;
    else if (u < 9)
        k[0] = rand64() & 0xffffffffu;
    else
        rand_scalar(k, r);
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Keeps the fastest repetition's wall and CPU milliseconds. */
static double cpu_at_best, cpu_t0;
static double best_ms(double cur, uint64_t t0)
{
    double ms = (double)(now_ns() - t0) / 1e6;
    if (ms < cur)
        cpu_at_best = cpu_ms() - cpu_t0;
    return ms < cur ? ms : cur;
}

#define BENCH_CURVE(C)                                                         \
    static void C##_points_g1(C##_g1_affine_t *p, size_t n)                    \
    {                                                                          \
        C##_g1_jac_t *j = malloc(n * sizeof(*j)), q, acc;                      \
        uint64_t k[4];                                                         \
        rand_scalar(k, C##_fr_modulus.l);                                      \
        C##_g1_mul_scalar_affine(&q, &C##_g1_generator, k, 4);                 \
        rand_scalar(k, C##_fr_modulus.l);                                      \
        C##_g1_mul_scalar_affine(&acc, &C##_g1_generator, k, 4);               \
        for (size_t i = 0; i < n; i++) {                                       \
            j[i] = acc;                                                        \
            C##_g1_add(&acc, &acc, &q);                                        \
        }                                                                      \
        void *scr = malloc(n * sizeof(p->x));                                  \
        C##_g1_batch_to_affine(p, j, n, scr);                                  \
        free(j), free(scr);                                                    \
    }                                                                          \
    static void C##_points_g2(C##_g2_affine_t *p, size_t n)                    \
    {                                                                          \
        C##_g2_jac_t *j = malloc(n * sizeof(*j)), q, acc;                      \
        uint64_t k[4];                                                         \
        rand_scalar(k, C##_fr_modulus.l);                                      \
        C##_g2_mul_scalar_affine(&q, &C##_g2_generator, k, 4);                 \
        rand_scalar(k, C##_fr_modulus.l);                                      \
        C##_g2_mul_scalar_affine(&acc, &C##_g2_generator, k, 4);               \
        for (size_t i = 0; i < n; i++) {                                       \
            j[i] = acc;                                                        \
            C##_g2_add(&acc, &acc, &q);                                        \
        }                                                                      \
        void *scr = malloc(n * sizeof(p->x));                                  \
        C##_g2_batch_to_affine(p, j, n, scr);                                  \
        free(j), free(scr);                                                    \
    }                                                                          \
    static int C##_bench(unsigned log_n, unsigned th, int reps, const char *parts) \
    {                                                                          \
        size_t n = (size_t)1 << log_n;                                         \
        struct C##_ntt_domain d;                                               \
        if (C##_ntt_domain_init(&d, log_n, th) < 0)                            \
            return -1;                                                         \
        C##_fr_t *v = malloc(3 * n * sizeof(*v)), *w = malloc(3 * n * sizeof(*w)); \
        uint64_t(*dense)[4] = malloc(n * 32), (*wit)[4] = malloc(n * 32);      \
        C##_g1_affine_t *p1 = malloc(n * sizeof(*p1));                         \
        C##_g2_affine_t *p2 = strchr(parts, 'g') ? malloc(n * sizeof(*p2)) : NULL; \
        for (size_t i = 0; i < 3 * n; i++) {                                   \
            rand_scalar(v[i].l, C##_fr_modulus.l);                             \
            C##_fr_to_mont(&v[i], &v[i]);                                      \
        }                                                                      \
        for (size_t i = 0; i < n; i++) {                                       \
            rand_scalar(dense[i], C##_fr_modulus.l);                           \
            witness_scalar(wit[i], C##_fr_modulus.l);                          \
        }                                                                      \
        C##_points_g1(p1, n);                                                  \
        if (p2)                                                                \
            C##_points_g2(p2, n);                                              \
        for (const char *pp = parts; *pp; pp++) {                              \
            double ms = 1e300;                                                 \
            uint64_t sum = 0;                                                  \
            for (int r = 0; r < reps; r++) {                                   \
                C##_g1_jac_t j1;                                               \
                C##_g2_jac_t j2;                                               \
                C##_g1_affine_t a1;                                            \
                C##_g2_affine_t a2;                                            \
                int rc = 0;                                                    \
                if (*pp == 'n')                                                \
                    memcpy(w, v, 3 * n * sizeof(*v));                          \
                cpu_t0 = cpu_ms();                                             \
                uint64_t t0 = now_ns();                                        \
                switch (*pp) {                                                 \
                case 'n':                                                      \
                    for (int k = 0; k < 3; k++)                                \
                        C##_ntt_coset_lde(w + k * n, &d, th);                  \
                    ms = best_ms(ms, t0);                                      \
                    sum = w[n - 1].l[0] ^ w[2 * n + 1].l[0];                   \
                    break;                                                     \
                case 'h':                                                      \
                case 'w':                                                      \
                    rc = C##_g1_msm(&j1, p1, *pp == 'h' ? (void *)dense : (void *)wit, n, th); \
                    ms = best_ms(ms, t0);                                      \
                    C##_g1_to_affine(&a1, &j1);                                \
                    sum = a1.x.l[0];                                           \
                    break;                                                     \
                case 'g':                                                      \
                    if (!p2)                                                   \
                        break;                                                 \
                    rc = C##_g2_msm(&j2, p2, wit, n, th);                      \
                    ms = best_ms(ms, t0);                                      \
                    C##_g2_to_affine(&a2, &j2);                                \
                    sum = a2.x.c0.l[0];                                        \
                    break;                                                     \
                default:                                                       \
                    fprintf(stderr, "bench_cpu: unknown part '%c'\n", *pp);    \
                    return -1;                                                 \
                }                                                              \
                if (rc < 0) {                                                  \
                    fprintf(stderr, "bench_cpu: MSM failed (%d)\n", rc);       \
                    return -1;                                                 \
                }                                                              \
            }                                                                  \
            printf("%c %.1f ms  cpu %.1f ms  (check %016llx)\n", *pp, ms,      \
                   cpu_at_best, (unsigned long long)sum);                      \
        }                                                                      \
        free(v), free(w), free(dense), free(wit), free(p1), free(p2);          \
        C##_ntt_domain_free(&d);                                               \
        return 0;                                                              \
    }

BENCH_CURVE(bn254)
BENCH_CURVE(bls12381)

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s bn254|bls12381 LOG_N [THREADS [REPS [PARTS]]]\n", argv[0]);
        return 2;
    }
    unsigned log_n = (unsigned)atoi(argv[2]);
    unsigned th = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    const char *parts = argc > 5 ? argv[5] : "nhwg";
    if (log_n < 1 || log_n > 24 || reps < 1) {
        fprintf(stderr, "bench_cpu: LOG_N must be 1..24, REPS >= 1\n");
        return 2;
    }
    int rc;
    if (!strcmp(argv[1], "bn254"))
        rc = bn254_bench(log_n, th, reps, parts);
    else if (!strcmp(argv[1], "bls12381"))
        rc = bls12381_bench(log_n, th, reps, parts);
    else {
        fprintf(stderr, "bench_cpu: unknown curve '%s'\n", argv[1]);
        return 2;
    }
    return rc < 0 ? 1 : 0;
}
