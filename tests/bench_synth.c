/*
 * bench_synth — synthd's hot path alone: a partition's witness read and
 * a = A·w, b = B·w (and c = a∘b in builds before SYNTH_AB_ONLY, which
 * wrote it into the slot too), timed in CPU seconds of all threads, as
 * synthd's own figure (bench-pipeline's Mcons/s/core) counts them.
 *
 *   bench_synth KEY.zkey WITNESS.wtns [REPS [THREADS [PAYLOAD]]]
 *
 * REPS (default 5) partitions are synthesized one after the other into one
 * set of buffers (a slot's payload: a, b, the witness; c before
 * SYNTH_AB_ONLY); THREADS
 * defaults to parallel_threads(); PAYLOAD (shm, anon or anon-huge, default
 * shm) is how those buffers are mapped (payload() below). Prints one line
 * of NAME=VALUE fields:
 *   index_ms        wall time to build the key's synthesis index (once)
 *   index_cpu_ms    its CPU time, all threads
 *   read_cpu_ms     witness read (pread + range check, and the private
 *                   huge-page copy where synthd makes one: SYNTH_WCOPY,
 *                   witness_read.h), CPU, median
 *   abc_cpu_ms      a, b (c too, in older builds), CPU of all threads, median
 *   wall_ms         witness read + a, b (c), wall, median
 *   cpu_ms          witness read + a, b (c), CPU, median
 *   mcons_core      domain rows / (cpu_ms seconds) / 1e6: Mcons/s/core
 *   sha256          of a‖b of the last run in Montgomery form (builds that
 *                   write the slot's form of shm/payload.h are brought back
 *                   to it after the timed runs), the same for every build
 *                   that computes the same vectors: tests/bench_synth.sh
 *                   compares
 * and, from builds with the stream index, a second line: index_bytes and
 * the terms of each class (ones, neg_ones, smalls, generals).
 *
 * It uses only the interface every synthd build has had since the row
 * index (synth_index_build, X_synth_abc or, with SYNTH_AB_ONLY,
 * X_synth_ab, synth_read_witness; synth_read_witness_copy where
 * SYNTH_WCOPY is defined), so the same file builds against an
 * older tree for a side-by-side run. Figures only; nothing here is an
 * assertion.
 */
#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "parallel.h"
#include "synth.h"
#include "synth_index.h"
#include "witness_read.h"
#include "wtns.h"
#include "zkey.h"

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_ms(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_u64);
    return (n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) / 1e6;
}

/* The buffers a, b (c) and the witness, prefaulted before any synthesis:
 *   shm        (default) a sealed-size memfd, fallocated and mapped shared,
 *              as shm/pool.c makes the slot pool: the pages synthd really
 *              writes and reads (shmem: huge pages only where
 *              /sys/kernel/mm/transparent_hugepage/shmem_enabled allows);
 *   anon       private anonymous memory;
 *   anon-huge  the same with MADV_HUGEPAGE (transparent huge pages where
 *              .../transparent_hugepage/enabled is madvise or always): how
 *              much the witness's random reads lose to 4 KiB pages. */
static void *payload(size_t bytes, const char *kind)
{
    void *p;
    if (bytes == 0)
        bytes = 1;
    if (strcmp(kind, "shm") == 0) {
        int fd = memfd_create("bench-synth-slot", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)bytes) < 0 || fallocate(fd, 0, 0, (off_t)bytes) < 0)
            return NULL;
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    } else if (strcmp(kind, "anon") == 0 || strcmp(kind, "anon-huge") == 0) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED && strcmp(kind, "anon-huge") == 0)
            madvise(p, bytes, MADV_HUGEPAGE);
    } else {
        return NULL;
    }
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

/* The vectors one run writes: a, b, and c before SYNTH_AB_ONLY. */
#ifdef SYNTH_AB_ONLY
#define NVEC 2
#else
#define NVEC 3
#endif

#if defined(SYNTH_AB_STANDARD) || defined(SYNTH_ABC_SLOT_FORM)
#define SYNTH_TO_MONTGOMERY 1
/* a, b (n values each, one after the other at v) in the build's slot form
 * to a·R, b·R, as builds before either wrote: standard form takes the
 * Montgomery product by R^2, a·R^-1 and b·R^-1 the product by R^3. */
#ifdef SYNTH_AB_STANDARD
#define TO_MONT_K(F, k) ((k) = F##_r2)
#else
#define TO_MONT_K(F, k) F##_mul(&(k), &F##_r2, &F##_r2)
#endif
#define TO_MONT(F)                                                            \
    static void F##_to_montgomery(F##_t *v, size_t n)                         \
    {                                                                         \
        F##_t k;                                                              \
        TO_MONT_K(F, k);                                                      \
        for (size_t i = 0; i < 2 * n; i++)                                    \
            F##_mul(&v[i], &v[i], &k);                                        \
    }
TO_MONT(bn254_fr)
TO_MONT(bls12381_fr)

static void to_montgomery(enum curve_id curve, void *v, size_t n)
{
    if (curve == CURVE_BN254)
        bn254_fr_to_montgomery(v, n);
    else
        bls12381_fr_to_montgomery(v, n);
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: bench_synth KEY.zkey WITNESS.wtns [REPS [THREADS [shm|anon|anon-huge]]]\n");
        return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    unsigned nthreads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
    if (reps < 1 || reps > 1000)
        reps = 5;
    if (nthreads == 0)
        nthreads = parallel_threads();
    struct sp_err e = { "" };
    struct zkey zk;
    struct wtns w;
    struct synth_index ix;
    int kfd = open(argv[1], O_RDONLY | O_CLOEXEC), wfd = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (kfd < 0 || wfd < 0) {
        fprintf(stderr, "bench_synth: %s: %s\n", kfd < 0 ? argv[1] : argv[2], strerror(errno));
        return 1;
    }
    if (zkey_open(&zk, kfd, argv[1], &e) < 0 || wtns_open(&w, wfd, argv[2], &e) < 0 ||
        wtns_check_key(&w, &zk, &e) < 0) {
        fprintf(stderr, "bench_synth: %s\n", e.msg);
        return 1;
    }
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC), i0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (synth_index_build(&ix, &zk, &e) < 0) {
        fprintf(stderr, "bench_synth: %s\n", e.msg);
        return 1;
    }
    double index_ms = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
    double index_cpu_ms = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - i0) / 1e6;

    size_t vec = (size_t)zk.domain_size * 32, wit = (size_t)zk.n_vars * 32;
    const char *kind = argc > 5 ? argv[5] : "shm";
    uint8_t *a = payload(NVEC * vec + wit, kind);
    if (!a) {
        fprintf(stderr, "bench_synth: cannot map %zu bytes as %s: %s\n", NVEC * vec + wit, kind,
                strerror(errno));
        return 1;
    }
    uint8_t *b = a + vec, *wv = b + (NVEC - 1) * vec;
    uint64_t *t_read = calloc((size_t)reps, 8), *t_abc = calloc((size_t)reps, 8);
    uint64_t *t_wall = calloc((size_t)reps, 8), *t_cpu = calloc((size_t)reps, 8);
    if (!t_read || !t_abc || !t_wall || !t_cpu)
        return 1;
#ifdef SYNTH_WCOPY
    struct synth_wcopy wc;
    synth_wcopy_init(&wc, SYNTH_WCOPY_MIN_BYTES);
#endif
    for (int r = 0; r < reps; r++) {
        uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
#ifdef SYNTH_WCOPY /* synthd's read: the witness also into a private huge-page copy */
        const void *gw;
        if (synth_read_witness_copy(&w, wfd, wv, &wc, &gw, nthreads, &e) < 0) {
#else
        const void *gw = wv;
        if (synth_read_witness(&w, wfd, wv, nthreads, &e) < 0) {
#endif
            fprintf(stderr, "bench_synth: %s\n", e.msg);
            return 1;
        }
        uint64_t c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
#ifdef SYNTH_AB_ONLY
        if (zk.curve == CURVE_BN254)
            bn254_synth_ab(&ix, &zk, gw, a, b, nthreads);
        else
            bls12381_synth_ab(&ix, &zk, gw, a, b, nthreads);
#ifdef SYNTH_WCOPY
        synth_wcopy_done(&wc);
#endif
#else
        uint8_t *c = b + vec;
        if (zk.curve == CURVE_BN254)
            bn254_synth_abc(&ix, &zk, wv, a, b, c, nthreads);
        else
            bls12381_synth_abc(&ix, &zk, wv, a, b, c, nthreads);
#endif
        uint64_t c2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), w2 = clock_ns(CLOCK_MONOTONIC);
        t_read[r] = c1 - c0;
        t_abc[r] = c2 - c1;
        t_cpu[r] = c2 - c0;
        t_wall[r] = w2 - w0;
    }
#ifdef SYNTH_TO_MONTGOMERY
    to_montgomery(zk.curve, a, zk.domain_size);
#endif
    SHA2_CTX h;
    char hex[SHA256_DIGEST_STRING_LENGTH];
    SHA256Init(&h);
    SHA256Update(&h, a, 2 * vec); /* a‖b: what every build writes */
    SHA256End(&h, hex);
    double cpu = median_ms(t_cpu, reps);
    printf("curve=%s log_domain=%u n_vars=%u coefs=%llu threads=%u reps=%d payload=%s index_ms=%.1f index_cpu_ms=%.1f "
           "read_cpu_ms=%.2f abc_cpu_ms=%.2f wall_ms=%.2f cpu_ms=%.2f mcons_core=%.3f sha256=%s\n",
           zk.curve == CURVE_BN254 ? "bn128" : "bls12381", zk.log_domain, zk.n_vars,
           (unsigned long long)zk.n_coefs, nthreads, reps, kind, index_ms, index_cpu_ms, median_ms(t_read, reps),
           median_ms(t_abc, reps), median_ms(t_wall, reps), cpu,
           (double)zk.domain_size / (cpu / 1e3) / 1e6, hex);
#ifdef SYNTH_INDEX_MAGIC /* the stream index (synth_index.h): its size and term classes */
    printf("index_bytes=%zu ones=%llu neg_ones=%llu smalls=%llu generals=%llu\n", ix.block_bytes,
           (unsigned long long)ix.hdr->class_count[SYNTH_ONE],
           (unsigned long long)ix.hdr->class_count[SYNTH_NEG_ONE],
           (unsigned long long)ix.hdr->class_count[SYNTH_SMALL],
           (unsigned long long)ix.hdr->class_count[SYNTH_GENERAL]);
#endif
#ifdef SYNTH_WCOPY
    synth_wcopy_done(&wc);
#endif
    synth_index_free(&ix);
    zkey_close(&zk);
    return 0;
}
