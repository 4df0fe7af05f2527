/*
 * msm_tmpl.h — multi-scalar multiplication Σ k_i·P_i by Pippenger's bucket
 * method, multi-threaded. A "C template": define
 *   MSM_GROUP        group prefix (e.g. bn254_g1; needs curve_tmpl.h's types
 *                    and functions)
 *   MSM_SCALAR_BITS  bits of the scalar field (254 BN254, 255 BLS12-381)
 * then include. It defines MSM_GROUP##_msm, declared in msm.h.
 *
 * Method: scalars are cut into windows of c bits; for each window, every
 * point is added (mixed Jacobian+affine addition) into bucket[digit], the
 * buckets are summed with the running-sum trick (Σ d·B_d with 2·2^c adds),
 * and windows are joined by Horner's rule (c doublings each). Work is split
 * into (window, point-chunk) tasks handed out to threads.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define MSM_CAT2(a, b) a##_##b
#define MSM_CAT(a, b) MSM_CAT2(a, b)
#define MG(name) MSM_CAT(MSM_GROUP, name)
#define MJ MSM_CAT(MSM_GROUP, jac_t)
#define MA MSM_CAT(MSM_GROUP, affine_t)

struct MG(msm_ctx) {
    const uint8_t *points;  /* n affine points, raw (possibly unaligned) */
    const uint8_t *scalars; /* n × 32 bytes, standard form LE */
    size_t n;
    unsigned c;             /* window bits */
    unsigned nwin;
    size_t chunk;           /* points per task */
    size_t nchunks;
    MJ *partial;            /* [nwin][nchunks] window sums */
    atomic_int failed;      /* a worker could not allocate its buckets */
};

/* Bits [bit, bit+c) of a 256-bit little-endian scalar (c ≤ 24). */
static inline uint32_t MG(digit)(const uint8_t *k, unsigned bit, unsigned c)
{
    unsigned byte = bit >> 3;
    uint32_t v = 0;
    for (unsigned i = 0; i < 4 && byte + i < 32; i++)
        v |= (uint32_t)k[byte + i] << (8 * i);
    return (v >> (bit & 7)) & ((1u << c) - 1);
}

static void MG(msm_task)(void *arg, size_t b, size_t e)
{
    struct MG(msm_ctx) *x = arg;
    size_t nb = ((size_t)1 << x->c) - 1;
    MJ *bucket = malloc(nb * sizeof(MJ));
    if (!bucket) {
        atomic_store(&x->failed, 1);
        return;
    }
    for (size_t t = b; t < e; t++) {
        unsigned w = (unsigned)(t / x->nchunks);
        size_t ch = t % x->nchunks;
        size_t p0 = ch * x->chunk, p1 = p0 + x->chunk < x->n ? p0 + x->chunk : x->n;
        unsigned bit = w * x->c;
        unsigned c = x->c;
        if (bit + c > 256)
            c = 256 - bit;
        for (size_t i = 0; i < nb; i++)
            MG(set_inf)(&bucket[i]);
        for (size_t i = p0; i < p1; i++) {
            uint32_t d = MG(digit)(x->scalars + 32 * i, bit, c);
            if (d == 0)
                continue;
            MA p;
            memcpy(&p, x->points + i * sizeof(MA), sizeof(MA));
            MG(add_affine)(&bucket[d - 1], &bucket[d - 1], &p);
        }
        /* Σ_d d·B_d = Σ_d (B_d + B_{d+1} + … ) */
        MJ run, acc;
        MG(set_inf)(&run);
        MG(set_inf)(&acc);
        for (size_t i = nb; i-- > 0;) {
            MG(add)(&run, &run, &bucket[i]);
            MG(add)(&acc, &acc, &run);
        }
        x->partial[t] = acc;
    }
    free(bucket);
}

/* Window size minimising (bits/c)·(n + 2^(c+1)) additions. */
static unsigned MG(msm_window)(size_t n)
{
    unsigned best = 1;
    double best_cost = 1e300;
    for (unsigned c = 1; c <= 16; c++) {
        double cost = (double)((MSM_SCALAR_BITS + c - 1) / c) * ((double)n + (double)(2u << c));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

int MG(msm)(MJ *ret, const void *points, const void *scalars, size_t n, unsigned nthreads)
{
    MG(set_inf)(ret);
    if (n == 0)
        return 0;
    if (nthreads == 0)
        nthreads = parallel_threads();
    struct MG(msm_ctx) x = { .points = points, .scalars = scalars, .n = n };
    x.c = MG(msm_window)(n);
    x.nwin = (MSM_SCALAR_BITS + x.c - 1) / x.c;
    /* enough tasks to keep every thread busy, but chunks of ≥ 2^c points */
    x.nchunks = (2 * (size_t)nthreads + x.nwin - 1) / x.nwin;
    size_t min_chunk = (size_t)1 << x.c;
    if (x.nchunks > (n + min_chunk - 1) / min_chunk)
        x.nchunks = (n + min_chunk - 1) / min_chunk;
    if (x.nchunks == 0)
        x.nchunks = 1;
    x.chunk = (n + x.nchunks - 1) / x.nchunks;
    size_t ntasks = (size_t)x.nwin * x.nchunks;
    x.partial = malloc(ntasks * sizeof(MJ));
    if (!x.partial)
        return -12; /* -ENOMEM */
    atomic_init(&x.failed, 0);
    parallel_for(ntasks, 1, nthreads, MG(msm_task), &x);
    if (atomic_load(&x.failed)) {
        free(x.partial);
        return -12; /* -ENOMEM */
    }

    for (unsigned w = x.nwin; w-- > 0;) {
        if (w != x.nwin - 1)
            for (unsigned i = 0; i < x.c; i++)
                MG(dbl)(ret, ret);
        for (size_t ch = 0; ch < x.nchunks; ch++)
            MG(add)(ret, ret, &x.partial[(size_t)w * x.nchunks + ch]);
    }
    free(x.partial);
    return 0;
}

#undef MG
#undef MJ
#undef MA
#undef MSM_CAT
#undef MSM_CAT2
#undef MSM_GROUP
#undef MSM_SCALAR_BITS
