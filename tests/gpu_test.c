/*
 * gpu_test.c — `make test-gpu`: the GPU kernels (gpud/cuda/kernels/gpu_*.h) against
 * the CPU backend (common/ntt.h, common/msm.h) on random inputs, on a
 * machine with a CUDA device. Prints one line per check and
 * "N passed, N failed"; exits 1 if any failed, 2 if no device.
 *
 *   gpu_test [max_log [only]]   sizes 2^10, 2^16, 2^20, 2^22 (those ≤ max_log;
 *                               the NTT also at 2^1..2^13 and 2^17);
 *                               only: run the checks whose kind ("field",
 *                               "ntt", "g1", "g2", "fb", "bellperson",
 *                               "stream", "pinned") is a substring of it;
 *                               pinned_check (8 GiB of host memory
 *                               page-locked through gpu_mem_register) runs
 *                               only when only names "stream" or "pinned",
 *                               not in the run of everything
 *
 * Fields: mul, add, sub, square of Fr, Fp (both curves) and Fp2 on 2^12
 * random elements and 0, 1, p−1, against field_tmpl.h / fp2_tmpl.h.
 * NTT: forward, inverse and coset LDE of random Fr vectors, bit-identical
 * to the CPU's. MSM, both curves, G1 and G2: random scalars at each size
 * (with infinity points mixed in), and at 2^16 and 2^20 the edge cases
 * 0, 1, r−1, all equal, 90% zeros, witness-like 0/1/small values (all
 * equal again at 2^22); at 2^16 also fixed window sizes 4, 7, 13, 16, 21
 * and fewer scalars than points. Results are compared as projective points
 * (X_eq). Fixed-base multiplication (keygen's points), all four groups, at
 * 2^10 and 2^16: affine outputs byte for byte against X_fb_mul_batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "bellperson_ntt.h"
#include "gpu_bellperson.h"
#include "gpu_device.h"
#include "gpu_field.h"
#include "gpu_fixed_base.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "gpu_prove.h"
#include "fixed_base.h"
#include "gpu_data.h"
#include "msm.h"
#include "ntt.h"

static int passed, failed;

static void check(int ok, const char *what, unsigned log_n, double ms)
{
    printf("%-4s %-44s 2^%-2u %8.1f ms\n", ok ? "ok" : "FAIL", what, log_n, ms);
    fflush(stdout);
    if (ok)
        passed++;
    else
        failed++;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* -------------------------------------------------------------- fields */

/* x (limbs 64-bit limbs) uniform below p. */
static void rand_below(uint64_t *x, const uint64_t *p, int limbs, uint64_t *rng)
{
    uint64_t mask = ~0ull >> __builtin_clzll(p[limbs - 1]);
    for (;;) {
        for (int i = 0; i < limbs; i++)
            x[i] = gpu_data_rand(rng);
        x[limbs - 1] &= mask;
        for (int i = limbs - 1; i >= 0; i--)
            if (x[i] != p[i]) {
                if (x[i] < p[i])
                    return;
                break;
            }
    }
}

/* Element-wise mul, add, sub, sqr of 2^12 random elements, with the special
 * values 0, 1 (Montgomery) and p−1 in the first slots. */
#define FIELD_CASE(FT, PARTS, GF, NAME)                                                       \
    static void FT##_field_check(uint64_t *rng)                                               \
    {                                                                                         \
        enum { N = 4096, L = sizeof(FT##_t) / 8 / (PARTS), W = sizeof(FT##_t) / 8 };          \
        static FT##_t a[N], b[N], want[N], got[N];                                            \
        struct sp_err e;                                                                      \
        for (int i = 0; i < N; i++)                                                           \
            for (int k = 0; k < (PARTS); k++) {                                               \
                rand_below((uint64_t *)&a[i] + k * L, FIELD_MOD_##GF, L, rng);                \
                rand_below((uint64_t *)&b[i] + k * L, FIELD_MOD_##GF, L, rng);                \
            }                                                                                 \
        memset(&a[0], 0, sizeof(a[0]));                                                       \
        FT##_set_one(&a[1]);                                                                  \
        FT##_set_one(&b[2]);                                                                  \
        FT##_neg(&a[3], &a[1]);                                                               \
        memcpy(&b[3], &a[3], sizeof(b[3]));                                                   \
        memcpy(&b[4], &a[4], sizeof(b[4]));                                                   \
        static const char *ops[] = { "mul", "add", "sub", "sqr" };                            \
        for (int op = 0; op < 4; op++) {                                                      \
            for (int i = 0; i < N; i++) {                                                     \
                if (op == 0) FT##_mul(&want[i], &a[i], &b[i]);                                \
                else if (op == 1) FT##_add(&want[i], &a[i], &b[i]);                           \
                else if (op == 2) FT##_sub(&want[i], &a[i], &b[i]);                           \
                else FT##_sqr(&want[i], &a[i]);                                               \
            }                                                                                 \
            memset(got, 0x33, sizeof(got));                                                   \
            int rc = gpu_field_op(GF, (enum gpu_field_opcode)op, got, a, b, N, &e);           \
            if (rc)                                                                           \
                printf("%s\n", e.msg);                                                        \
            int bad = -1;                                                                     \
            for (int i = 0; i < N && bad < 0 && !rc; i++)                                     \
                if (memcmp(&got[i], &want[i], sizeof(want[i])))                               \
                    bad = i;                                                                  \
            if (bad >= 0) {                                                                   \
                printf("  first mismatch at %d:\n  want", bad);                               \
                for (int k = W - 1; k >= 0; k--) printf(" %016llx", (unsigned long long)((uint64_t *)&want[bad])[k]); \
                printf("\n  got ");                                                           \
                for (int k = W - 1; k >= 0; k--) printf(" %016llx", (unsigned long long)((uint64_t *)&got[bad])[k]); \
                printf("\n");                                                                 \
            }                                                                                 \
            char what[64];                                                                    \
            snprintf(what, sizeof(what), "%s %s", NAME, ops[op]);                             \
            check(!rc && bad < 0, what, 12, 0);                                            \
        }                                                                                     \
    }

#define FIELD_MOD_GPU_F_BN254_FR bn254_fr_modulus.l
#define FIELD_MOD_GPU_F_BN254_FP bn254_fp_modulus.l
#define FIELD_MOD_GPU_F_BN254_FP2 bn254_fp_modulus.l
#define FIELD_MOD_GPU_F_BLS12381_FR bls12381_fr_modulus.l
#define FIELD_MOD_GPU_F_BLS12381_FP bls12381_fp_modulus.l
#define FIELD_MOD_GPU_F_BLS12381_FP2 bls12381_fp_modulus.l

FIELD_CASE(bn254_fr, 1, GPU_F_BN254_FR, "bn254 fr")
FIELD_CASE(bn254_fp, 1, GPU_F_BN254_FP, "bn254 fp")
FIELD_CASE(bn254_fp2, 2, GPU_F_BN254_FP2, "bn254 fp2")
FIELD_CASE(bls12381_fr, 1, GPU_F_BLS12381_FR, "bls12381 fr")
FIELD_CASE(bls12381_fp, 1, GPU_F_BLS12381_FP, "bls12381 fp")
FIELD_CASE(bls12381_fp2, 2, GPU_F_BLS12381_FP2, "bls12381 fp2")

/* ---------------------------------------------------------------- NTT */

#define NTT_CASE(CURVE, GC)                                                                   \
    static void CURVE##_ntt_check(unsigned log_n, uint64_t *rng)                             \
    {                                                                                         \
        size_t n = (size_t)1 << log_n, bytes = n * 32;                                        \
        struct sp_err e;                                                                      \
        struct CURVE##_ntt_domain dom;                                                        \
        struct gpu_ntt *g, *gc = NULL;                                                        \
        uint8_t *x = malloc(bytes), *cpu = malloc(bytes), *got = malloc(bytes);               \
        void *din, *dout;                                                                     \
        if (!x || !cpu || !got || CURVE##_ntt_domain_init(&dom, log_n, 0) ||                  \
            cudaMalloc(&din, bytes) || cudaMalloc(&dout, bytes)) {                            \
            check(0, #CURVE " ntt setup", log_n, 0);                                       \
            return;                                                                           \
        }                                                                                     \
        if (gpu_ntt_create(&g, GC, log_n, &e) || gpu_ntt_create_compact(&gc, GC, log_n, &e)) { \
            printf("%s\n", e.msg);                                                            \
            check(0, #CURVE " ntt create", log_n, 0);                                      \
            return;                                                                           \
        }                                                                                     \
        for (int what = 0; what < 5; what++) {                                                \
            static const char *names[] = { #CURVE " ntt forward", #CURVE " ntt inverse",      \
                                           #CURVE " ntt coset lde",                           \
                                           #CURVE " ntt coset lde in place",                  \
                                           #CURVE " ntt coset lde in place, compact twiddles" }; \
            gpu_data_fr(x, GC, n, rng);                                                       \
            memcpy(cpu, x, bytes);                                                            \
            if (what == 0)                                                                    \
                CURVE##_ntt_forward((void *)cpu, &dom, 0);                                    \
            else if (what == 1)                                                               \
                CURVE##_ntt_inverse((void *)cpu, &dom, 0);                                    \
            else /* the coset LDE, out of place and in place */                                \
                CURVE##_ntt_coset_lde((void *)cpu, &dom, 0);                                  \
            memset(got, 0xa5, bytes);                                                         \
            cudaMemcpy(din, x, bytes, cudaMemcpyHostToDevice);                                \
            cudaMemset(dout, 0xff, bytes); /* poison: every output must be written */         \
            double t0 = now_ms();                                                             \
            int rc = what == 0   ? gpu_ntt_forward(g, dout, din, &e)                          \
                     : what == 1 ? gpu_ntt_inverse(g, dout, din, &e)                          \
                     : what == 2 ? gpu_ntt_coset_lde(g, dout, din, &e)                        \
                     : what == 3 ? gpu_ntt_coset_lde_inplace(g, din, &e)                      \
                                 : gpu_ntt_coset_lde_inplace(gc, din, &e);                    \
            cudaError_t ce = cudaDeviceSynchronize();                                         \
            double t1 = now_ms();                                                             \
            if (rc)                                                                           \
                printf("%s\n", e.msg);                                                        \
            if (ce)                                                                           \
                printf("cuda: %s\n", cudaGetErrorString(ce));                                 \
            cudaMemcpy(got, what >= 3 ? din : dout, bytes, cudaMemcpyDeviceToHost);           \
            check(!rc && !ce && memcmp(got, cpu, bytes) == 0, names[what], log_n, t1 - t0); \
        }                                                                                     \
        /* a compact domain refuses the out-of-place transforms */                           \
        check(gpu_ntt_forward(gc, dout, din, &e) == -EINVAL, #CURVE " ntt compact: in place only", \
              log_n, 0);                                                                      \
        gpu_ntt_free(g);                                                                      \
        gpu_ntt_free(gc);                                                                     \
        cudaFree(din);                                                                        \
        cudaFree(dout);                                                                       \
        CURVE##_ntt_domain_free(&dom);                                                        \
        free(x);                                                                              \
        free(cpu);                                                                            \
        free(got);                                                                            \
    }

NTT_CASE(bn254, GPU_BN254)
NTT_CASE(bls12381, GPU_BLS12381)

/* ---------------------------------------------------------------- MSM */

enum scalar_kind { SK_RANDOM, SK_ZERO, SK_ONE, SK_R_MINUS_1, SK_ALL_EQUAL, SK_MOSTLY_ZERO, SK_SMALL };
static const char *sk_name[] = { "random", "all 0", "all 1", "all r-1", "all equal", "90% zero",
                                 "0/1/small" };

static void fill_scalars(uint64_t *s, enum gpu_curve c, size_t n, enum scalar_kind k, uint64_t *rng)
{
    const uint64_t *r = c == GPU_BN254 ? bn254_fr_modulus.l : bls12381_fr_modulus.l;
    gpu_data_scalars(s, c, n, rng);
    for (size_t i = 0; i < n; i++) {
        uint64_t *x = s + 4 * i;
        switch (k) {
        case SK_RANDOM: break;
        case SK_ZERO: memset(x, 0, 32); break;
        case SK_ONE: memset(x, 0, 32); x[0] = 1; break;
        case SK_R_MINUS_1: memcpy(x, r, 32); x[0] -= 1; break;
        case SK_ALL_EQUAL: memcpy(x, s, 32); break;
        case SK_MOSTLY_ZERO:
            if (gpu_data_rand(rng) % 10)
                memset(x, 0, 32);
            break;
        case SK_SMALL: {
            uint64_t v = gpu_data_rand(rng) % 4;
            memset(x, 0, 32);
            x[0] = v < 3 ? v : gpu_data_rand(rng) & 0xffff;
            break;
        }
        }
    }
}

#define MSM_CASE(GROUP, GG, GC)                                                               \
    static void GROUP##_msm_check(const void *pts, size_t n, unsigned log_n, enum scalar_kind k, \
                                  unsigned window, uint64_t *rng, struct gpu_msm *g)          \
    {                                                                                         \
        uint64_t *sc = malloc(n * 32);                                                        \
        struct sp_err e;                                                                      \
        char what[96];                                                                        \
        if (window)                                                                           \
            snprintf(what, sizeof(what), #GROUP " msm %s, %u-bit windows", sk_name[k], window); \
        else                                                                                  \
            snprintf(what, sizeof(what), #GROUP " msm %s", sk_name[k]);                      \
        if (!sc) {                                                                            \
            check(0, what, log_n, 0);                                                      \
            return;                                                                           \
        }                                                                                     \
        fill_scalars(sc, GC, n, k, rng);                                                      \
        GROUP##_jac_t want, got;                                                              \
        if (GROUP##_msm(&want, pts, sc, n, 0)) {                                              \
            check(0, what, log_n, 0);                                                      \
            free(sc);                                                                         \
            return;                                                                           \
        }                                                                                     \
        memset(&got, 0x5a, sizeof(got));                                                      \
        double t0 = now_ms();                                                                 \
        int rc = gpu_msm_run(g, &got, sc, n, window, &e);                                     \
        double t1 = now_ms();                                                                 \
        if (rc)                                                                               \
            printf("%s\n", e.msg);                                                            \
        check(!rc && GROUP##_eq(&want, &got), what, log_n, t1 - t0);                        \
        free(sc);                                                                             \
    }                                                                                         \
    static void GROUP##_msm_suite(unsigned log_n, uint64_t *rng)                              \
    {                                                                                         \
        size_t n = (size_t)1 << log_n;                                                        \
        size_t inf[] = { 3, n / 2, n - 1 };                                                   \
        struct sp_err e;                                                                      \
        struct gpu_msm *g;                                                                    \
        void *pts = gpu_data_points(GG, n, inf, 3, gpu_data_rand(rng));                       \
        if (!pts || gpu_msm_create(&g, GG, pts, n, &e)) {                                     \
            printf("%s\n", pts ? e.msg : "out of memory");                                    \
            check(0, #GROUP " msm create", log_n, 0);                                      \
            free(pts);                                                                        \
            return;                                                                           \
        }                                                                                     \
        GROUP##_msm_check(pts, n, log_n, SK_RANDOM, 0, rng, g);                               \
        if (log_n == 16 || log_n == 20)                                                       \
            for (int k = SK_ZERO; k <= SK_SMALL; k++)                                         \
                GROUP##_msm_check(pts, n, log_n, k, 0, rng, g);                               \
        if (log_n == 22)                                                                      \
            GROUP##_msm_check(pts, n, log_n, SK_ALL_EQUAL, 0, rng, g);                        \
        if (log_n == 16) {                                                                    \
            static const unsigned ws[] = { 4, 7, 13, 16, 21 };                                \
            for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)                           \
                GROUP##_msm_check(pts, n, log_n, SK_RANDOM, ws[i], rng, g);                   \
            /* fewer scalars than resident points */                                          \
            GROUP##_msm_check(pts, n - 77, log_n, SK_RANDOM, 0, rng, g);                      \
        }                                                                                     \
        gpu_msm_free(g);                                                                      \
        free(pts);                                                                            \
    }

MSM_CASE(bn254_g1, GPU_BN254_G1, GPU_BN254)
MSM_CASE(bn254_g2, GPU_BN254_G2, GPU_BN254)
MSM_CASE(bls12381_g1, GPU_BLS12381_G1, GPU_BLS12381)
MSM_CASE(bls12381_g2, GPU_BLS12381_G2, GPU_BLS12381)

/* ------------------------------------------------- streamed MSM, budget */

/* Streamed points (gpu_msm_create_chunked with stream: the points stay in
 * host memory and each MSM part is copied to the device while the part
 * before is summed) against the resident engine and the CPU: the points in
 * three arrays (a run may cross from one to the next), infinities at the
 * array edges, chunks of 1000 points (part boundaries anywhere inside a
 * window's digits) and of 2^12, runs over all points, over a range at an
 * offset, across two arrays, over fewer points than a chunk, with 90%-zero
 * scalars, and with the scalars in device memory (the CUDA backend's way).
 * Then the ledger (gpu_mem.h): the planned bytes are what the engine takes,
 * everything is given back, a budget too small is refused naming it, and an
 * injected allocation failure at each allocation site of the streaming path
 * names CUDA's error and leaves nothing held. */
/* What gpu_mem_context_reserve counted outside the ledger when the test
 * started (the context and eagerly loaded modules, local memory, the
 * driver's slack): the device's use must stay within it plus the ledger. */
static size_t dev_reserve;

static void device_within(const char *when, unsigned log_n)
{
    size_t fr = 0, tot = 0;
    struct sp_err e;
    char nm[200];
    int ok = gpu_mem_info(&fr, &tot, &e) == 0;
    size_t used = tot - fr, led = gpu_mem_used(GPU_MEM_NPARTS);
    size_t stack = 0;
    cudaDeviceGetLimit(&stack, cudaLimitStackSize); /* raised by the driver for a kernel that needs more */
    snprintf(nm, sizeof(nm),
             "device use %.1f MiB within the reserve %.1f MiB + the ledger's %.1f MiB (%s; stack limit now %zu B)",
             used / 1048576.0, dev_reserve / 1048576.0, led / 1048576.0, when, stack);
    check(ok && dev_reserve && used <= dev_reserve + led, nm, log_n, 0);
}

static size_t gpu_mem_plan_check(size_t plan)
{
    if (!plan)
        printf("# gpu_msm_plan failed\n");
    return plan;
}

static size_t group_point_bytes(enum gpu_group g)
{
    static const size_t b[] = { 64, 128, 96, 192 };
    return b[g];
}

#define STREAM_CASE(GROUP, GG, GC)                                                                \
    static void GROUP##_stream_one(const uint8_t *pts, struct gpu_msm *st, struct gpu_msm *res,    \
                                   size_t at, size_t cnt, enum scalar_kind k, int dev_scalars,     \
                                   const char *what, unsigned log_n, uint64_t *rng)                \
    {                                                                                             \
        uint64_t *sc = malloc(cnt * 32 + 32);                                                     \
        struct sp_err e = { "" };                                                                 \
        char name[160];                                                                           \
        snprintf(name, sizeof(name), #GROUP " streamed msm, %s (%zu points at %zu, %s)", what,   \
                 cnt, at, sk_name[k]);                                                            \
        if (!sc) {                                                                                \
            check(0, name, log_n, 0);                                                             \
            return;                                                                               \
        }                                                                                         \
        fill_scalars(sc, GC, cnt, k, rng);                                                        \
        GROUP##_jac_t want, got_st, got_res;                                                      \
        int ok = GROUP##_msm(&want, pts + at * group_point_bytes(GG), sc, cnt, 0) == 0;          \
        void *dsc = NULL;                                                                         \
        if (ok && dev_scalars)                                                                    \
            ok = gpu_alloc(&dsc, cnt * 32, &e) == 0 && gpu_upload(dsc, sc, cnt * 32, &e) == 0;   \
        memset(&got_st, 0x5a, sizeof(got_st));                                                    \
        memset(&got_res, 0xa5, sizeof(got_res));                                                  \
        double t0 = now_ms();                                                                     \
        if (ok)                                                                                   \
            ok = gpu_msm_run_at(st, &got_st, at, dsc ? dsc : (void *)sc, cnt, &e) == 0;           \
        double t1 = now_ms();                                                                     \
        if (ok)                                                                                   \
            ok = gpu_msm_run_at(res, &got_res, at, dsc ? dsc : (void *)sc, cnt, &e) == 0;         \
        if (!ok)                                                                                  \
            printf("# %s\n", e.msg);                                                              \
        check(ok && GROUP##_eq(&want, &got_st) && GROUP##_eq(&want, &got_res), name, log_n,      \
              t1 - t0);                                                                           \
        gpu_free(dsc);                                                                            \
        free(sc);                                                                                 \
    }                                                                                             \
    static void GROUP##_stream_suite(unsigned log_n, uint64_t *rng)                               \
    {                                                                                             \
        size_t n = (size_t)1 << log_n, psz = group_point_bytes(GG);                               \
        size_t cnt[3] = { n / 4, n / 2, n / 4 };                                                  \
        size_t inf[] = { 0, n / 4 - 1, n / 4, 3 * n / 4, n - 1 };                                 \
        struct sp_err e = { "" };                                                                 \
        struct gpu_msm *st = NULL, *res = NULL;                                                   \
        uint8_t *pts = gpu_data_points(GG, n, inf, 5, gpu_data_rand(rng));                        \
        const void *arr[3] = { pts, pts + cnt[0] * psz, pts + (cnt[0] + cnt[1]) * psz };          \
        static const size_t chunks[] = { 1000, 4096 };                                            \
        if (!pts || gpu_msm_create_arrays(&res, GG, arr, cnt, 3, &e)) {                           \
            printf("# %s\n", pts ? e.msg : "out of memory");                                      \
            check(0, #GROUP " streamed msm: resident engine", log_n, 0);                          \
            free(pts);                                                                            \
            return;                                                                               \
        }                                                                                         \
        for (size_t ci = 0; ci < 2; ci++) {                                                       \
            /* the resident engine grows its buffers for runs over more points \
             * than its arrays (and host scalars): counted apart */               \
            size_t chunk = chunks[ci], before = gpu_mem_used(GPU_MEM_NPARTS);                     \
            size_t res0 = gpu_msm_device_bytes(res);                                              \
            char what[160];                                                                       \
            if (gpu_msm_create_chunked(&st, GG, arr, cnt, 3, chunk, 1, &e)) {                     \
                printf("# %s\n", e.msg);                                                          \
                check(0, #GROUP " streamed msm: create", log_n, 0);                               \
                continue;                                                                         \
            }                                                                                     \
            snprintf(what, sizeof(what), "chunks of %zu", chunk);                                 \
            {                                                                                     \
                /* the plan is what create took, from the same layout */                       \
                size_t plan = gpu_msm_plan(GG, cnt, 3, chunk, 1, &e);                             \
                size_t took = gpu_mem_used(GPU_MEM_NPARTS) - before;                              \
                char nm[400];                                                                     \
                snprintf(nm, sizeof(nm), #GROUP " ledger: plan %zu B = create took %zu B = engine holds %zu B (%s)", \
                         plan, took, gpu_msm_device_bytes(st), what);                            \
                check(plan && plan == took && took == gpu_msm_device_bytes(st), nm, log_n, 0);     \
            }                                                                                     \
            /* runs within one array, device scalars: no growth */                               \
            size_t planned = gpu_msm_device_bytes(st);                                            \
            GROUP##_stream_one(pts, st, res, cnt[0] + 5, cnt[1] - 9, SK_RANDOM, 1, what, log_n, rng); \
            GROUP##_stream_one(pts, st, res, n - 77, 77, SK_RANDOM, 1, what, log_n, rng);         \
            snprintf(what, sizeof(what), #GROUP " ledger: runs within the plan (chunks of %zu)", chunk); \
            check(gpu_msm_device_bytes(st) == planned, what, log_n, 0);                           \
            snprintf(what, sizeof(what), "chunks of %zu", chunk);                                 \
            /* across arrays, host scalars: the engine grows, and says so */                     \
            GROUP##_stream_one(pts, st, res, 0, n, SK_RANDOM, 0, what, log_n, rng);               \
            GROUP##_stream_one(pts, st, res, cnt[0] - 700, 1500, SK_RANDOM, 1, what, log_n, rng); \
            GROUP##_stream_one(pts, st, res, cnt[0], 3 * n / 4, SK_MOSTLY_ZERO, 1, what, log_n, rng); \
            snprintf(what, sizeof(what), #GROUP " ledger: the engine's bytes are the ledger's (chunks of %zu)", chunk); \
            check(gpu_mem_used(GPU_MEM_NPARTS) - before ==                                        \
                      gpu_msm_device_bytes(st) + gpu_msm_device_bytes(res) - res0, what, log_n, 0); \
            gpu_msm_free(st);                                                                     \
            st = NULL;                                                                            \
            snprintf(what, sizeof(what), #GROUP " ledger: all given back (chunks of %zu)", chunk); \
            check(gpu_mem_used(GPU_MEM_NPARTS) == before + gpu_msm_device_bytes(res) - res0, what, \
                  log_n, 0);                                                                      \
        }                                                                                         \
        /* a budget that holds the streamed engine but not the resident one */                      \
        if (log_n == 16) {                                                                        \
            size_t before = gpu_mem_used(GPU_MEM_NPARTS), old = gpu_mem_budget();                 \
            /* a run over all three arrays grows the engine to a plan of n points */             \
            size_t sizes[3] = { cnt[0], cnt[1], n };                                              \
            size_t plan = gpu_mem_plan_check(gpu_msm_plan(GG, sizes, 3, 4096, 1, &e));            \
            /* the streamed engine and the device scalars fit, resident points do not */          \
            gpu_mem_set_budget(before + plan + gpu_mem_charge(n * 32), &e);                       \
            struct gpu_msm *r2 = NULL;                                                            \
            int rc = gpu_msm_create_arrays(&r2, GG, arr, cnt, 3, &e);                             \
            gpu_msm_free(r2);                                                                     \
            check(rc == -ENOMEM && strstr(e.msg, "--gpu-mem") &&                                  \
                      gpu_mem_used(GPU_MEM_NPARTS) == before,                                     \
                  #GROUP " ledger: a resident engine over the budget refused", log_n, 0);           \
            if (rc != -ENOMEM)                                                                    \
                printf("# rc %d: %s\n", rc, e.msg);                                               \
            /* and within it streamed in chunks of 2^12 */                                        \
            rc = gpu_msm_create_chunked(&r2, GG, arr, cnt, 3, 4096, 1, &e);                       \
            if (rc == 0)                                                                          \
                GROUP##_stream_one(pts, r2, res, 0, n, SK_RANDOM, 1, "within the budget", log_n, rng); \
            else                                                                                  \
                printf("# %s\n", e.msg);                                                          \
            check(rc == 0 && gpu_mem_peak() >= gpu_mem_used(GPU_MEM_NPARTS),                      \
                  #GROUP " ledger: streamed within the budget", log_n, 0);                        \
            gpu_msm_free(r2);                                                                     \
            gpu_mem_set_budget(old ? old : (size_t)1 << 50, &e);                                  \
            /* an injected allocation failure at each site of the streaming path */               \
            static const char *sites[] = { "msm stage", "msm counters", "msm window sums",        \
                                           "msm sort keys", "msm sort values", "msm partial sums", \
                                           "msm buckets", "msm window segments", "msm CUB scratch", \
                                           "msm scalars" };                                       \
            setenv("SLOTPROVE_FAULT", "gpu-alloc", 1);                                            \
            for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {                       \
                setenv("SLOTPROVE_FAULT_MATCH", sites[i], 1);                                     \
                GROUP##_jac_t got;                                                                \
                uint64_t *sc = calloc(n, 32);                                                     \
                r2 = NULL;                                                                        \
                rc = gpu_msm_create_chunked(&r2, GG, arr, cnt, 3, 4096, 1, &e);                   \
                if (rc == 0 && sc) /* host scalars: the scalar buffer is made by the run */       \
                    rc = gpu_msm_run(r2, &got, sc, n, 0, &e);                                     \
                gpu_msm_free(r2);                                                                 \
                free(sc);                                                                         \
                char nm[400];                                                                     \
                snprintf(nm, sizeof(nm), #GROUP " injected allocation failure at \"%s\": -ENOMEM, " \
                         "CUDA's error named, nothing held", sites[i]);                           \
                check(rc == -ENOMEM && strstr(e.msg, "cudaErrorMemoryAllocation") &&              \
                          strstr(e.msg, sites[i]) && gpu_mem_used(GPU_MEM_NPARTS) == before,      \
                      nm, log_n, 0);                                                              \
                if (rc != -ENOMEM)                                                                \
                    printf("# rc %d: %s\n", rc, e.msg);                                           \
            }                                                                                     \
            unsetenv("SLOTPROVE_FAULT");                                                          \
            unsetenv("SLOTPROVE_FAULT_MATCH");                                                    \
        }                                                                                         \
        device_within(#GROUP " streamed and resident engines held", log_n);                      \
        gpu_msm_free(res);                                                                        \
        free(pts);                                                                                \
    }

STREAM_CASE(bn254_g1, GPU_BN254_G1, GPU_BN254)
STREAM_CASE(bn254_g2, GPU_BN254_G2, GPU_BN254)
STREAM_CASE(bls12381_g1, GPU_BLS12381_G1, GPU_BLS12381)
STREAM_CASE(bls12381_g2, GPU_BLS12381_G2, GPU_BLS12381)

/* -------------------------------------------------------- fixed base */

/* keygen's points (gpu_fb_*) against common/fixed_base.h's X_fb_mul_batch,
 * byte for byte: random 256-bit scalars (any value is allowed) with 0, 1,
 * r − 1, r (infinity), r + 1 and 2^256 − 1 mixed in, for the window the CPU
 * would choose and for 7 bits (a partial top window) and 16 (the largest). */
#define FB_CASE(GROUP, GG, GC)                                                                \
    static void GROUP##_fb_check(unsigned log_n, unsigned window, uint64_t *rng)              \
    {                                                                                         \
        size_t n = (size_t)1 << log_n;                                                        \
        const uint64_t *r = GC == GPU_BN254 ? bn254_fr_modulus.l : bls12381_fr_modulus.l;      \
        char what[96];                                                                        \
        struct GROUP##_fb_table t;                                                            \
        if (!window)                                                                          \
            window = GROUP##_fb_window(n);                                                    \
        snprintf(what, sizeof(what), #GROUP " fixed-base, %u-bit windows", window);          \
        uint64_t(*k)[4] = malloc(n * 32);                                                     \
        GROUP##_affine_t *want = malloc(n * sizeof(*want)), *got = malloc(n * sizeof(*got));  \
        struct gpu_fb *f = NULL;                                                              \
        struct sp_err e;                                                                      \
        if (!k || !want || !got || GROUP##_fb_init(&t, &GROUP##_generator, window, 0)) {      \
            check(0, what, log_n, 0);                                                         \
            free(k), free(want), free(got);                                                   \
            return;                                                                           \
        }                                                                                     \
        for (size_t i = 0; i < n; i++)                                                        \
            for (int l = 0; l < 4; l++)                                                       \
                k[i][l] = gpu_data_rand(rng);                                                 \
        memset(k[0], 0, 32);                                                                  \
        memset(k[1], 0, 32), k[1][0] = 1;                                                     \
        memcpy(k[2], r, 32), k[2][0] -= 1;                                                    \
        memcpy(k[3], r, 32);                                                                  \
        memcpy(k[4], r, 32), k[4][0] += 1;                                                    \
        memset(k[5], 0xff, 32);                                                               \
        int ok = GROUP##_fb_mul_batch(want, &t, (const uint64_t(*)[4])k, n, 0) == 0;          \
        memset(got, 0x5a, n * sizeof(*got));                                                  \
        double t0 = now_ms(), t1 = t0;                                                        \
        if (ok && (gpu_fb_create(&f, GG, t.pts, t.window, n, &e) ||                           \
                   (t0 = now_ms(), gpu_fb_mul_batch(f, got, k, n, &e)))) {                    \
            printf("%s\n", e.msg);                                                            \
            ok = 0;                                                                           \
        }                                                                                     \
        t1 = now_ms();                                                                        \
        check(ok && memcmp(want, got, n * sizeof(*got)) == 0, what, log_n, t1 - t0);         \
        gpu_fb_free(f);                                                                       \
        GROUP##_fb_free(&t);                                                                  \
        free(k), free(want), free(got);                                                       \
    }                                                                                         \
    static void GROUP##_fb_suite(unsigned log_n, uint64_t *rng)                               \
    {                                                                                         \
        GROUP##_fb_check(log_n, 0, rng);                                                      \
        if (log_n == 10) {                                                                    \
            GROUP##_fb_check(log_n, 7, rng);                                                  \
            GROUP##_fb_check(log_n, 16, rng);                                                 \
        }                                                                                     \
    }

FB_CASE(bn254_g1, GPU_BN254_G1, GPU_BN254)
FB_CASE(bn254_g2, GPU_BN254_G2, GPU_BN254)
FB_CASE(bls12381_g1, GPU_BLS12381_G1, GPU_BLS12381)
FB_CASE(bls12381_g2, GPU_BLS12381_G2, GPU_BLS12381)

/* The H scalars of a, b, c in the slot's form (shm/payload.h: standard
 * form, and c = a∘b = a·b·R^-1 as gpud forms it; here c random, so that
 * the subtraction is exercised): gpu_h_scalars with k = R^2 against the
 * CPU backend's h_pass
 * (gpud/cpu/prove_tmpl.h): Montgomery product a·b, minus c, product with
 * R^2; once with b given, once with a already holding the product. */
#define H_CASE(F, GC, NAME)                                                                   \
    static void F##_h_check(unsigned log_n, uint64_t *rng)                                    \
    {                                                                                         \
        size_t n = (size_t)1 << log_n, bytes = n * 32;                                        \
        struct sp_err e;                                                                      \
        F##_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);                     \
        F##_t *want = malloc(bytes), *got = malloc(bytes), k2 = F##_r2;                      \
        void *da, *db, *dc, *dout;                                                            \
        if (!a || !b || !c || !want || !got || cudaMalloc(&da, bytes) ||                      \
            cudaMalloc(&db, bytes) || cudaMalloc(&dc, bytes) || cudaMalloc(&dout, bytes)) {   \
            check(0, NAME " h scalars setup", log_n, 0);                                      \
            return;                                                                           \
        }                                                                                     \
        gpu_data_fr(a, GC, n, rng);                                                           \
        gpu_data_fr(b, GC, n, rng);                                                           \
        gpu_data_fr(c, GC, n, rng);                                                           \
        for (size_t i = 0; i < n; i++) {                                                      \
            F##_t t;                                                                          \
            F##_mul(&t, &a[i], &b[i]);                                                        \
            F##_sub(&t, &t, &c[i]);                                                           \
            F##_mul(&want[i], &t, &k2);                                                       \
        }                                                                                     \
        cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);                                     \
        cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);                                     \
        cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice);                                     \
        for (int pre = 0; pre < 2; pre++) {                                                   \
            cudaMemset(dout, 0xff, bytes);                                                    \
            double t0 = now_ms();                                                             \
            int rc = pre ? gpu_fr_mul(GC, da, da, db, n, &e) ||                               \
                               gpu_h_scalars(GC, dout, da, NULL, dc, k2.l, n, &e)             \
                         : gpu_h_scalars(GC, dout, da, db, dc, k2.l, n, &e);                  \
            cudaError_t ce = cudaDeviceSynchronize();                                         \
            double t1 = now_ms();                                                             \
            if (rc)                                                                           \
                printf("%s\n", e.msg);                                                        \
            memset(got, 0xa5, bytes);                                                         \
            cudaMemcpy(got, dout, bytes, cudaMemcpyDeviceToHost);                             \
            check(!rc && !ce && memcmp(got, want, bytes) == 0,                                \
                  pre ? NAME " h scalars, slot form (a·b first)" : NAME " h scalars, slot form", \
                  log_n, t1 - t0);                                                            \
        }                                                                                     \
        cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dout);                             \
        free(a), free(b), free(c), free(want), free(got);                                     \
    }
H_CASE(bn254_fr, GPU_BN254, "bn254")
H_CASE(bls12381_fr, GPU_BLS12381, "bls12381")

/* The device h stage (gpu_h_stage, what the CUDA backend runs) from a
 * slot's a and b alone (shm/payload.h: c is not in the slot): c = a∘b
 * formed on the device, the three coset LDEs, the H scalars; against the
 * CPU backend's steps (gpud/cpu/prove_tmpl.h P_(form_c), ntt_stage,
 * h_pass) taken here on the host with the CPU NTT: c_i = a_i·b_i
 * (Montgomery product), each coset LDE, (a_i·b_i − c_i)·R^2. Fast (full
 * twiddles, a and b kept: checked too) and lean (in place, compact
 * twiddles) buffer sets. */
#define HSTAGE_CASE(F, CURVE, GC, NAME)                                                       \
    static void F##_hstage_check(unsigned log_n, uint64_t *rng)                               \
    {                                                                                         \
        size_t n = (size_t)1 << log_n, bytes = n * 32;                                        \
        struct sp_err e = { "" };                                                             \
        struct CURVE##_ntt_domain dom;                                                        \
        F##_t *a = malloc(bytes), *b = malloc(bytes), *wa = malloc(bytes);                    \
        F##_t *wb = malloc(bytes), *wc = malloc(bytes), *got = malloc(bytes), k2 = F##_r2;    \
        if (!a || !b || !wa || !wb || !wc || !got || CURVE##_ntt_domain_init(&dom, log_n, 0)) { \
            check(0, NAME " h stage setup", log_n, 0);                                        \
            return;                                                                           \
        }                                                                                     \
        gpu_data_fr(a, GC, n, rng);                                                           \
        gpu_data_fr(b, GC, n, rng);                                                           \
        memcpy(wa, a, bytes), memcpy(wb, b, bytes);                                           \
        for (size_t i = 0; i < n; i++)                                                        \
            F##_mul(&wc[i], &a[i], &b[i]);                                                    \
        CURVE##_ntt_coset_lde(wa, &dom, 0);                                                   \
        CURVE##_ntt_coset_lde(wb, &dom, 0);                                                   \
        CURVE##_ntt_coset_lde(wc, &dom, 0);                                                   \
        for (size_t i = 0; i < n; i++) { /* want, over wa */                                  \
            F##_t t;                                                                          \
            F##_mul(&t, &wa[i], &wb[i]);                                                      \
            F##_sub(&t, &t, &wc[i]);                                                          \
            F##_mul(&wa[i], &t, &k2);                                                         \
        }                                                                                     \
        for (int lean = 0; lean <= 1; lean++) {                                               \
            struct gpu_ntt *d = NULL;                                                         \
            struct gpu_h_bufs hb = { lean, NULL, NULL, NULL, NULL, NULL, NULL };              \
            void **v[] = { &hb.a, &hb.b, &hb.c, &hb.s, &hb.o1, &hb.o2 };                      \
            void *out = NULL;                                                                 \
            int rc = (lean ? gpu_ntt_create_compact : gpu_ntt_create)(&d, GC, log_n, &e);     \
            for (int i = 0; i < 6 && rc == 0; i++)                                            \
                if (i < 2 || (i == 2 ? lean : !lean))                                         \
                    rc = gpu_alloc(v[i], bytes, &e);                                          \
            if (rc == 0 && hb.c)                                                              \
                rc = cudaMemset(hb.c, 0xff, bytes) ? -EIO : 0; /* poison: c must be formed */ \
            if (rc == 0 && hb.s)                                                              \
                rc = cudaMemset(hb.s, 0xff, bytes) ? -EIO : 0;                                \
            if (rc == 0 && (rc = gpu_upload(hb.a, a, bytes, &e)) == 0)                        \
                rc = gpu_upload(hb.b, b, bytes, &e);                                          \
            double t0 = now_ms();                                                             \
            if (rc == 0)                                                                      \
                rc = gpu_h_stage(d, GC, &hb, k2.l, n, &out, &e);                              \
            double t1 = now_ms();                                                             \
            if (rc)                                                                           \
                printf("%s\n", e.msg);                                                        \
            memset(got, 0xa5, bytes);                                                         \
            int ok = rc == 0 && out == (lean ? hb.a : hb.s) &&                                \
                     gpu_download(got, out, bytes, &e) == 0 && memcmp(got, wa, bytes) == 0;   \
            check(ok, lean ? NAME " h stage from a, b (c = a∘b on the device), lean, in place" \
                           : NAME " h stage from a, b (c = a∘b on the device) = CPU h_pass",  \
                  log_n, t1 - t0);                                                            \
            if (!lean) {                                                                      \
                int kept = rc == 0 && gpu_download(got, hb.a, bytes, &e) == 0 &&              \
                           memcmp(got, a, bytes) == 0 &&                                      \
                           gpu_download(got, hb.b, bytes, &e) == 0 && memcmp(got, b, bytes) == 0; \
                check(kept, NAME " h stage fast: a, b kept for a CPU re-prove", log_n, 0);    \
            }                                                                                 \
            for (int i = 0; i < 6; i++)                                                       \
                gpu_free(*v[i]);                                                              \
            gpu_ntt_free(d);                                                                  \
        }                                                                                     \
        CURVE##_ntt_domain_free(&dom);                                                        \
        free(a), free(b), free(wa), free(wb), free(wc), free(got);                            \
    }
HSTAGE_CASE(bn254_fr, bn254, GPU_BN254, "bn254")
HSTAGE_CASE(bls12381_fr, bls12381, GPU_BLS12381, "bls12381")

/* bellperson's quotient (gpud/cuda/cuda_bellperson.h): the device's h, made
 * on snarkjs's roots and coset from a and b alone (c = a∘b formed on the
 * device after the row permutation), against the CPU's bp_quotient, made
 * with bellperson's own steps (roots 7^((r-1)/n), coset 7) from a, b and c
 * = a∘b formed here on the host, coefficient by coefficient, for random a
 * and b (a satisfied witness by construction: H exists). */
static void bellperson_quotient_check(unsigned log_n, uint64_t *rng)
{
    size_t n = (size_t)1 << log_n, bytes = n * 32;
    struct sp_err e = { "" };
    struct bls12381_ntt_domain dom;
    bls12381_fr_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    bls12381_fr_t *ca = malloc(bytes), *cb = malloc(bytes), *cc = malloc(bytes);
    uint8_t *got = malloc(bytes);
    void *hd = NULL;
    if (!a || !b || !c || !ca || !cb || !cc || !got || bp_domain_init(&dom, log_n, 0)) {
        check(0, "bls12381 bellperson quotient setup", log_n, 0);
        return;
    }
    gpu_data_fr(a, GPU_BLS12381, n, rng);
    gpu_data_fr(b, GPU_BLS12381, n, rng);
    for (size_t i = 0; i < n; i++)
        bls12381_fr_mul(&c[i], &a[i], &b[i]);
    memcpy(ca, a, bytes), memcpy(cb, b, bytes), memcpy(cc, c, bytes);
    bp_quotient(ca, cb, cc, &dom, 0);
    for (size_t i = 0; i < n; i++)
        bls12381_fr_from_mont(&ca[i], &ca[i]);
    bls12381_fr_t scale, shift_inv;
    bp_device_coset_constants(log_n, &scale, &shift_inv);
    /* fast (full NTT tables), then lean (in place on a compact domain)
     * under a budget of exactly its plan (gpu_bp_quotient_plan), then lean
     * under one byte less: refused, the ledger back where it was */
    for (int lean = 0; lean <= 2; lean++) {
        size_t before = gpu_mem_used(GPU_MEM_NPARTS), old = gpu_mem_budget();
        size_t plan = gpu_bp_quotient_plan(log_n, lean != 0);
        if (lean)
            gpu_mem_set_budget(before + plan - (lean == 2), &e);
        double t0 = now_ms();
        int rc = gpu_bp_quotient(log_n, lean != 0, a, b, bp_row_map_factor(log_n), &scale,
                                 &shift_inv, &hd, &e);
        double t1 = now_ms();
        size_t peak_ok = gpu_mem_used(GPU_MEM_NPARTS) <= before + plan;
        if (lean)
            gpu_mem_set_budget(old ? old : (size_t)1 << 50, &e);
        if (lean == 2) {
            check(rc == -ENOMEM && gpu_mem_used(GPU_MEM_NPARTS) == before,
                  "bls12381 bellperson quotient lean: a budget 1 B under its plan refused",
                  log_n, 0);
            if (rc == 0)
                gpu_mem_free(hd), hd = NULL;
            continue;
        }
        if (rc == 0)
            rc = gpu_download(got, hd, bytes, &e);
        if (rc)
            printf("%s\n", e.msg);
        static const uint8_t zero[32];
        int ok = rc == 0 && peak_ok && memcmp(got, ca, bytes) == 0 &&
                 memcmp(got + bytes - 32, zero, 32) == 0;
        if (rc == 0 && !ok)
            for (size_t i = 0; i < n; i++)
                if (memcmp(got + 32 * i, &ca[i], 32) != 0) {
                    printf("  first difference at coefficient %zu of %zu\n", i, n);
                    break;
                }
        check(ok, lean ? "bls12381 bellperson quotient lean (in place, compact NTT, within "
                         "its plan) = CPU bp_quotient"
                       : "bls12381 bellperson quotient (monomial h) = CPU bp_quotient",
              log_n, t1 - t0);
        gpu_mem_free(hd);
        hd = NULL;
    }
    bls12381_ntt_domain_free(&dom);
    free(a), free(b), free(c), free(ca), free(cb), free(cc), free(got);
}

/* pinned_check: page-locking host memory is charged to the ledger
 * (gpu_mem_register, part "pinned"). The rule on figures worked by hand
 * (floor ⌈GiB⌉ × 2 MiB, ceiling 2 × floor + 2 MiB, the measurement
 * rounded up to 2 MiB in between); then 8 GiB of host memory locked: the
 * measured device cost and the charge printed, the charge within the
 * bounds and on the ledger, the device's use within the reserve + the
 * ledger while it is locked, the ledger back where it was after the
 * unlock; a budget 1 B under the ceiling refused with nothing locked, a
 * budget of exactly the ceiling taken. */
static void pinned_check(void)
{
    const size_t MiB = (size_t)1 << 20, GiB = (size_t)1 << 30, bytes = 8 * GiB;
    const size_t lo = 16 * MiB, hi = 34 * MiB; /* 8 × 2 MiB; 2 × 16 + 2 MiB */
    struct sp_err e;
    check(gpu_mem_pin_floor(0) == 0 && gpu_mem_pin_ceiling(0) == 0 && gpu_mem_pin_floor(1) == 2 * MiB &&
              gpu_mem_pin_ceiling(1) == 6 * MiB && gpu_mem_pin_floor(GiB + 1) == 4 * MiB &&
              gpu_mem_pin_floor(55247376612ull) == 104 * MiB /* the 51.45 GiB key: 52 GiB started */ &&
              gpu_mem_pin_floor(bytes) == lo && gpu_mem_pin_ceiling(bytes) == hi,
          "pinned: floor 2 MiB a GiB started, ceiling 2 x floor + 2 MiB", 33, 0);
    check(gpu_mem_pin_charge(bytes, 0) == lo && gpu_mem_pin_charge(bytes, 16 * MiB + 1) == 18 * MiB &&
              gpu_mem_pin_charge(bytes, 20 * MiB) == 20 * MiB && gpu_mem_pin_charge(bytes, 35 * MiB) == hi &&
              gpu_mem_pin_charge(bytes, 100 * GiB) == hi,
          "pinned: the measurement, rounded to 2 MiB, within the bounds", 33, 0);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
        check(0, "pinned: 8 GiB of host memory (mmap)", 33, 0);
        return;
    }
    size_t before = gpu_mem_used(GPU_MEM_NPARTS), pb = gpu_mem_used(GPU_MEM_PINNED), old = gpu_mem_budget();
    struct gpu_mem_pin pin = { 0, 0 };
    double t0 = now_ms();
    int rc = gpu_mem_register(p, bytes, "pinned_check", &pin, &e);
    double t1 = now_ms();
    if (rc)
        printf("  %s\n", e.msg);
    printf("# 8 GiB page-locked: measured %.1f MiB, charged %.1f MiB (floor %.0f, ceiling %.0f MiB), "
           "locked in %.0f ms\n",
           pin.measured / (double)MiB, pin.charged / (double)MiB, lo / (double)MiB, hi / (double)MiB, t1 - t0);
    check(rc == 0 && pin.charged >= lo && pin.charged <= hi &&
              pin.charged == gpu_mem_pin_charge(bytes, pin.measured) &&
              gpu_mem_used(GPU_MEM_PINNED) == pb + pin.charged &&
              gpu_mem_used(GPU_MEM_NPARTS) == before + pin.charged,
          "pinned: 8 GiB locked, charged within the bounds to the ledger", 33, t1 - t0);
    if (rc == 0)
        device_within("8 GiB of host memory page-locked", 33);
    /* the same range again: the driver refuses, the ledger unchanged */
    int again = gpu_mem_register(p, bytes, "pinned_check", NULL, &e);
    check(rc == 0 && again < 0 && gpu_mem_used(GPU_MEM_NPARTS) == before + pin.charged,
          "pinned: locking it twice refused, nothing more charged", 33, 0);
    gpu_mem_unregister(p);
    check(gpu_mem_used(GPU_MEM_NPARTS) == before && gpu_mem_used(GPU_MEM_PINNED) == pb,
          "pinned: unlocked, the ledger's total back to its earlier value", 33, 0);
    /* the ceiling is what must fit: 1 B less is refused, exactly it taken */
    gpu_mem_set_budget(before + hi - 1, &e);
    rc = gpu_mem_register(p, bytes, "pinned_check", NULL, &e);
    check(rc == -ENOMEM && strstr(e.msg, "budget") && gpu_mem_used(GPU_MEM_NPARTS) == before,
          "pinned: a budget 1 B under the ceiling refused, nothing locked", 33, 0);
    if (rc == 0)
        gpu_mem_unregister(p);
    gpu_mem_set_budget(before + hi, &e);
    rc = gpu_mem_register(p, bytes, "pinned_check", &pin, &e);
    check(rc == 0 && gpu_mem_used(GPU_MEM_NPARTS) == before + pin.charged,
          "pinned: a budget of exactly the ceiling taken", 33, 0);
    gpu_mem_unregister(p);
    gpu_mem_set_budget(old ? old : (size_t)1 << 50, &e);
    check(gpu_mem_used(GPU_MEM_NPARTS) == before, "pinned: the ledger back where it started", 33, 0);
    munmap(p, bytes);
}

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 22;
    const char *only = argc > 2 ? argv[2] : "";
    char dev[256];
    struct sp_err e;
    setenv("CUDA_MODULE_LOADING", "EAGER", 0); /* as gpud: modules counted with the context */
    if (gpu_describe(dev, sizeof(dev), &e)) {
        printf("gpu_test: %s\n", e.msg);
        return 2;
    }
    {
        size_t fr, tot;
        if (gpu_mem_info(&fr, &tot, &e) == 0) /* the context made */
            dev_reserve = gpu_mem_context_reserve(gpu_msm_local_bytes());
        printf("# outside the ledger: %.1f MiB reserved (%zu B of local memory a thread at most, "
               "context %.1f MiB in use)\n",
               dev_reserve / 1048576.0, gpu_msm_local_bytes(), (tot - fr) / 1048576.0);
    }
    uint64_t seed = (uint64_t)time(NULL), rng = seed;
    printf("gpu_test: %s, seed %llu\n", dev, (unsigned long long)seed);
    if (!*only || strstr(only, "field")) {
        bn254_fr_field_check(&rng);
        bn254_fp_field_check(&rng);
        bn254_fp2_field_check(&rng);
        bls12381_fr_field_check(&rng);
        bls12381_fp_field_check(&rng);
        bls12381_fp2_field_check(&rng);
    }
    /* the NTT's pass plans at small sizes too: one partial tile (2^1..2^9),
     * a first pass shortened to leave three stages (2^11..2^13), and at 2^17
     * the 7-stage, 8-column passes that 2^24 runs */
    static const unsigned ntt_sizes[] = { 1, 2, 3, 4, 6, 9, 11, 12, 13, 17 };
    for (size_t i = 0; i < sizeof(ntt_sizes) / sizeof(ntt_sizes[0]); i++)
        if ((!*only || strstr(only, "ntt")) && ntt_sizes[i] <= max_log) {
            bn254_ntt_check(ntt_sizes[i], &rng);
            bls12381_ntt_check(ntt_sizes[i], &rng);
        }
    for (unsigned lg = 10; lg <= 16 && lg <= max_log; lg += 6) {
        if (!*only || strstr(only, "ntt")) {
            bn254_fr_h_check(lg, &rng);
            bls12381_fr_h_check(lg, &rng);
        }
        /* the h stage forming c on the device: `ntt`, or `hstage` alone */
        if (!*only || strstr(only, "ntt") || strstr(only, "hstage")) {
            bn254_fr_hstage_check(lg, &rng);
            bls12381_fr_hstage_check(lg, &rng);
        }
    }
    static const unsigned bp_sizes[] = { 1, 4, 10, 16, 20 };
    for (size_t i = 0; i < sizeof(bp_sizes) / sizeof(bp_sizes[0]); i++)
        if ((!*only || strstr(only, "bellperson")) && bp_sizes[i] <= max_log)
            bellperson_quotient_check(bp_sizes[i], &rng);
    static const unsigned sizes[] = { 10, 16, 20, 22 };
    for (size_t i = 0; i < 4; i++) {
        unsigned lg = sizes[i];
        if (lg > max_log)
            continue;
        if (!*only || strstr(only, "ntt")) {
            bn254_ntt_check(lg, &rng);
            bls12381_ntt_check(lg, &rng);
        }
        if (!*only || strstr(only, "g1")) {
            bn254_g1_msm_suite(lg, &rng);
            bls12381_g1_msm_suite(lg, &rng);
        }
        if (!*only || strstr(only, "g2")) {
            bn254_g2_msm_suite(lg, &rng);
            bls12381_g2_msm_suite(lg, &rng);
        }
        if ((!*only || strstr(only, "stream")) && (lg == 16 || lg == 20)) {
            bn254_g1_stream_suite(lg, &rng);
            bls12381_g1_stream_suite(lg, &rng);
            bn254_g2_stream_suite(lg, &rng);
            bls12381_g2_stream_suite(lg, &rng);
        }
        if ((!*only || strstr(only, "fb")) && lg <= 16) {
            bn254_g1_fb_suite(lg, &rng);
            bn254_g2_fb_suite(lg, &rng);
            bls12381_g1_fb_suite(lg, &rng);
            bls12381_g2_fb_suite(lg, &rng);
        }
    }
    /* only when asked: the run of everything keeps its checks */
    if (*only && (strstr(only, "stream") || strstr(only, "pinned")))
        pinned_check();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
