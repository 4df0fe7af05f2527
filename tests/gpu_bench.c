/*
 * gpu_bench.c — `make bench-gpu`: times the GPU kernels (gpud/cuda/kernels/gpu_*.h)
 * on a machine with a CUDA device; prints figures, asserts nothing.
 *
 *   gpu_bench [max_log [what [min_log]]]   what: a substring filter ("g1",
 *                                "ntt", ...); sizes from 2^min_log up
 *   $GPU_BENCH_WINDOWS           "17,18,19": time the MSMs at each of these
 *                                window sizes instead of the chosen one
 *   $GPU_BENCH_BITS              P (0..100): P % of the MSM scalars are 0 or 1
 *                                (half each, at random places), as a witness
 *                                of SHA-256 gadgets is; default 0
 *
 * MSM: G1 and G2 of both curves at 2^16, 2^20, 2^22, 2^24 (≤ max_log):
 * points resident on the device, random full-size scalars copied from
 * pinned host memory on every call (the copy is inside the time), the
 * window size gpu_msm_run chooses. NTT: forward at 2^16, 2^20, 2^24 on
 * data already on the device, plus the inverse and the coset LDE at 2^24.
 * Each figure is the best of 5 runs after one warm-up, timed with CUDA
 * events on the default stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "gpu_device.h"
#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "gpu_data.h"

#define REPS 5

static const char *group_name[] = { "bn254 G1", "bn254 G2", "bls12-381 G1", "bls12-381 G2" };

static unsigned min_log;

static void bench_msm(enum gpu_group g, unsigned max_log, uint64_t *rng)
{
    static const unsigned sizes[] = { 16, 20, 22, 24 };
    unsigned windows[16] = { 0 }, nw = 1;
    const char *ws = getenv("GPU_BENCH_WINDOWS");
    for (nw = 0; ws && *ws && nw < 16; nw++) {
        char *end;
        windows[nw] = (unsigned)strtoul(ws, &end, 10);
        ws = *end ? end + 1 : end;
    }
    nw = nw ? nw : 1;
    size_t nmax = 0;
    for (int i = 0; i < 4; i++)
        if (sizes[i] <= max_log)
            nmax = (size_t)1 << sizes[i];
    if (!nmax)
        return;
    struct sp_err e;
    void *pts = gpu_data_points(g, nmax, NULL, 0, gpu_data_rand(rng));
    void *sc = NULL;
    struct gpu_msm *m = NULL;
    /* page-locked through the ledger's one function (gpu_mem_register) */
    if (!pts || !(sc = malloc(nmax * 32))) {
        printf("msm %s: out of memory\n", group_name[g]);
        goto out;
    }
    if (gpu_mem_register(sc, nmax * 32, "bench scalars", NULL, &e)) {
        printf("msm %s: %s\n", group_name[g], e.msg);
        free(sc);
        sc = NULL;
        goto out;
    }
    gpu_data_scalars(sc, g <= GPU_BN254_G2 ? GPU_BN254 : GPU_BLS12381, nmax, rng);
    unsigned bits = getenv("GPU_BENCH_BITS") ? (unsigned)atoi(getenv("GPU_BENCH_BITS")) : 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; bits && i < nmax; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        if (x % 100 < bits) {
            memset((uint8_t *)sc + 32 * i, 0, 32);
            ((uint8_t *)sc)[32 * i] = (uint8_t)(x >> 40 & 1);
        }
    }
    if (gpu_msm_create(&m, g, pts, nmax, &e)) {
        printf("msm %s: %s\n", group_name[g], e.msg);
        goto out;
    }
    for (int i = 0; i < 4 * (int)nw; i++) {
        unsigned lg = sizes[i / nw], c = windows[i % nw];
        if (lg > max_log || lg < min_log)
            continue;
        size_t n = (size_t)1 << lg;
        uint8_t ret[1024];
        float best = 1e30f;
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        for (int r = 0; r <= REPS; r++) {
            cudaEventRecord(a, 0);
            if (gpu_msm_run(m, ret, sc, n, c, &e)) {
                printf("msm %s 2^%u: %s\n", group_name[g], lg, e.msg);
                break;
            }
            cudaEventRecord(b, 0);
            cudaEventSynchronize(b);
            float ms;
            cudaEventElapsedTime(&ms, a, b);
            if (r > 0 && ms < best)
                best = ms;
        }
        printf("msm  %-13s 2^%-2u  window %2u  %9.2f ms", group_name[g], lg,
               c ? c : gpu_msm_window_bits(g, n), best);
        if (bits)
            printf("  (%u%% of the scalars 0 or 1)", bits);
        printf("\n");
        fflush(stdout);
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
out:
    gpu_msm_free(m);
    gpu_mem_unregister(sc);
    free(sc);
    free(pts);
}

static void bench_ntt(enum gpu_curve c, unsigned max_log, uint64_t *rng)
{
    static const unsigned sizes[] = { 16, 20, 24 };
    const char *cname = c == GPU_BN254 ? "bn254" : "bls12-381";
    for (int i = 0; i < 3; i++) {
        unsigned lg = sizes[i];
        if (lg > max_log || lg < min_log)
            continue;
        size_t n = (size_t)1 << lg;
        struct sp_err e;
        struct gpu_ntt *d;
        void *h = malloc(n * 32), *din = NULL, *dout = NULL;
        if (!h || cudaMalloc(&din, n * 32) || cudaMalloc(&dout, n * 32) || gpu_ntt_create(&d, c, lg, &e)) {
            printf("ntt %s 2^%u: setup failed\n", cname, lg);
            free(h);
            cudaFree(din);
            cudaFree(dout);
            continue;
        }
        gpu_data_fr(h, c, n, rng);
        cudaMemcpy(din, h, n * 32, cudaMemcpyHostToDevice);
        for (int what = 0; what < 3; what++) {
            if (what && lg != 24)
                continue;
            static const char *names[] = { "forward", "inverse", "coset lde" };
            float best = 1e30f;
            cudaEvent_t a, b;
            cudaEventCreate(&a);
            cudaEventCreate(&b);
            for (int r = 0; r <= REPS; r++) {
                cudaEventRecord(a, 0);
                int rc = what == 0 ? gpu_ntt_forward(d, dout, din, &e)
                         : what == 1 ? gpu_ntt_inverse(d, dout, din, &e)
                                     : gpu_ntt_coset_lde(d, dout, din, &e);
                cudaEventRecord(b, 0);
                cudaEventSynchronize(b);
                if (rc) {
                    printf("ntt %s: %s\n", cname, e.msg);
                    break;
                }
                float ms;
                cudaEventElapsedTime(&ms, a, b);
                if (r > 0 && ms < best)
                    best = ms;
            }
            printf("ntt  %-13s 2^%-2u  %-9s  %9.3f ms\n", cname, lg, names[what], best);
            fflush(stdout);
            cudaEventDestroy(a);
            cudaEventDestroy(b);
        }
        gpu_ntt_free(d);
        cudaFree(din);
        cudaFree(dout);
        free(h);
    }
}

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 24;
    const char *only = argc > 2 ? argv[2] : "";
    min_log = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    char dev[256];
    struct sp_err e;
    if (gpu_describe(dev, sizeof(dev), &e)) {
        printf("gpu_bench: %s\n", e.msg);
        return 2;
    }
    uint64_t rng = (uint64_t)time(NULL);
    printf("gpu_bench: %s; best of %d\n", dev, REPS);
    if (!*only || strstr(only, "ntt")) {
        bench_ntt(GPU_BN254, max_log, &rng);
        bench_ntt(GPU_BLS12381, max_log, &rng);
    }
    for (int g = 0; g < 4; g++)
        if (!*only || strstr(group_name[g], only))
            bench_msm((enum gpu_group)g, max_log, &rng);
    return 0;
}
