/*
 * msm_tmpl.h — multi-scalar multiplication Σ k_i·P_i by Pippenger's bucket
 * method, multi-threaded. A "C template": define
 *   MSM_GROUP        group prefix (e.g. bn254_g1; needs curve_tmpl.h's types
 *                    and functions)
 *   MSM_FIELD        its coordinate field prefix (bn254_fp, bn254_fp2, …)
 *   MSM_SCALAR_BITS  bits of the scalar field (254 BN254, 255 BLS12-381)
 * then include. It defines MSM_GROUP##_msm, declared in msm.h.
 *
 * Method:
 * - Scalars are cut into windows of c bits, recoded as signed digits in
 *   [−2^(c−1), 2^(c−1)] (a digit above half borrows from the next window),
 *   so each window needs 2^(c−1) buckets and −P is free (negate y).
 * - Buckets are affine. Points are added into them in batches: every
 *   addition of a batch needs 1/(x_P − x_B), and one field inversion serves
 *   the whole batch (Montgomery's trick), so an affine addition costs about
 *   6 multiplications instead of a mixed Jacobian addition's 11. A point whose
 *   bucket already has an addition pending in the batch goes into that
 *   bucket's Jacobian overflow accumulator instead (same result, old cost),
 *   which keeps skewed inputs — e.g. many witness values equal to 1 — from
 *   degenerating into one inversion per point.
 * - Each window's buckets are summed with the running-sum trick (Σ d·B_d in
 *   2·2^(c−1) additions) and windows are joined by Horner's rule.
 * - Work is split into (window, point-chunk) tasks handed out to threads.
 * (Techniques as in the literature on Pippenger/bucket MSM with batch-affine
 * accumulation, e.g. the ZPrize MSM write-ups; this code is our own.)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define MSM_CAT2(a, b) a##_##b
#define MSM_CAT(a, b) MSM_CAT2(a, b)
#define MG(name) MSM_CAT(MSM_GROUP, name)
#define MF(name) MSM_CAT(MSM_FIELD, name)
#define MJ MSM_CAT(MSM_GROUP, jac_t)
#define MA MSM_CAT(MSM_GROUP, affine_t)
#define MT MSM_CAT(MSM_FIELD, t)
#define MSM_BATCH 256

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

/* Bits [bit, bit+c) of a 256-bit little-endian scalar (c ≤ 24); 0 past 256. */
static inline uint32_t MG(raw_digit)(const uint8_t *k, unsigned bit, unsigned c)
{
    unsigned byte = bit >> 3;
    uint32_t v = 0;
    for (unsigned i = 0; i < 4 && byte + i < 32; i++)
        v |= (uint32_t)k[byte + i] << (8 * i);
    return (v >> (bit & 7)) & ((1u << c) - 1);
}

/* Signed digit of window w: raw digit plus the borrow carried up from the
 * windows below, minus 2^c when it exceeds 2^(c−1) (that borrow then goes to
 * window w+1). Recomputed per window: O(w) cheap steps against an EC add. */
static inline int32_t MG(signed_digit)(const uint8_t *k, unsigned w, unsigned c)
{
    uint32_t carry = 0, half = 1u << (c - 1);
    int32_t d = 0;
    for (unsigned i = 0; i <= w; i++) {
        uint32_t v = MG(raw_digit)(k, i * c, c) + carry;
        carry = v > half;
        d = (int32_t)v - (int32_t)(carry << c);
    }
    return d;
}

struct MG(buckets) {
    MA *b;              /* affine bucket sums */
    MJ *over;           /* overflow accumulators (Jacobian) */
    uint8_t *set;       /* b[i] holds a point */
    uint8_t *over_set;  /* over[i] is not infinity */
    uint8_t *busy;      /* an addition into b[i] is pending in the batch */
    uint32_t idx[MSM_BATCH];
    MA pt[MSM_BATCH];
    MT den[MSM_BATCH], pre[MSM_BATCH];
    unsigned nbatch;
};

/* Completes the pending affine additions b[idx[i]] += pt[i] with one
 * inversion: λ = (y_P − y_B)/(x_P − x_B), or 3x²/2y when P = B. */
static void MG(flush)(struct MG(buckets) *s)
{
    MT acc, inv, t, lambda, x3;
    unsigned n = s->nbatch;
    if (!n)
        return;
    MF(set_one)(&acc);
    for (unsigned i = 0; i < n; i++) {
        MA *B = &s->b[s->idx[i]], *P = &s->pt[i];
        if (MF(eq)(&B->x, &P->x)) {
            if (MF(eq)(&B->y, &P->y) && !MF(is_zero)(&P->y))
                MF(dbl)(&s->den[i], &P->y);       /* doubling: 2y */
            else
                MF(set_zero)(&s->den[i]);         /* P = −B: sum is infinity */
        } else {
            MF(sub)(&s->den[i], &P->x, &B->x);
        }
        s->pre[i] = acc;
        if (!MF(is_zero)(&s->den[i]))
            MF(mul)(&acc, &acc, &s->den[i]);
    }
    MF(inv)(&inv, &acc);
    for (unsigned i = n; i-- > 0;) {
        uint32_t bi = s->idx[i];
        MA *B = &s->b[bi], *P = &s->pt[i];
        s->busy[bi] = 0;
        if (MF(is_zero)(&s->den[i])) {
            s->set[bi] = 0;                       /* B + (−B) */
            continue;
        }
        MF(mul)(&t, &inv, &s->pre[i]);            /* 1/den[i] */
        MF(mul)(&inv, &inv, &s->den[i]);
        if (MF(eq)(&B->x, &P->x)) {               /* λ = 3x²/2y */
            MF(sqr)(&lambda, &P->x);
            MT l3;
            MF(dbl)(&l3, &lambda);
            MF(add)(&lambda, &l3, &lambda);
        } else {
            MF(sub)(&lambda, &P->y, &B->y);
        }
        MF(mul)(&lambda, &lambda, &t);
        MF(sqr)(&x3, &lambda);                    /* x3 = λ² − x_B − x_P */
        MF(sub)(&x3, &x3, &B->x);
        MF(sub)(&x3, &x3, &P->x);
        MF(sub)(&t, &B->x, &x3);                  /* y3 = λ(x_B − x3) − y_B */
        MF(mul)(&t, &t, &lambda);
        MF(sub)(&B->y, &t, &B->y);
        B->x = x3;
    }
    s->nbatch = 0;
}

static void MG(bucket_add)(struct MG(buckets) *s, uint32_t bi, const MA *p)
{
    if (!s->set[bi]) {
        s->b[bi] = *p;
        s->set[bi] = 1;
    } else if (s->busy[bi]) {
        if (s->over_set[bi])
            MG(add_affine)(&s->over[bi], &s->over[bi], p);
        else
            MG(from_affine)(&s->over[bi], p);
        s->over_set[bi] = 1;
    } else {
        s->busy[bi] = 1;
        s->idx[s->nbatch] = bi;
        s->pt[s->nbatch++] = *p;
        if (s->nbatch == MSM_BATCH)
            MG(flush)(s);
    }
}

static void MG(msm_task)(void *arg, size_t b, size_t e)
{
    struct MG(msm_ctx) *x = arg;
    size_t nb = (size_t)1 << (x->c - 1);
    struct MG(buckets) *s = malloc(sizeof(*s));
    if (s) {
        s->b = malloc(nb * sizeof(MA));
        s->over = malloc(nb * sizeof(MJ));
        s->set = malloc(3 * nb);
    }
    if (!s || !s->b || !s->over || !s->set) {
        if (s) {
            free(s->b);
            free(s->over);
            free(s->set);
        }
        free(s);
        atomic_store(&x->failed, 1);
        return;
    }
    s->over_set = s->set + nb;
    s->busy = s->set + 2 * nb;
    for (size_t t = b; t < e; t++) {
        unsigned w = (unsigned)(t / x->nchunks);
        size_t ch = t % x->nchunks;
        size_t p0 = ch * x->chunk, p1 = p0 + x->chunk < x->n ? p0 + x->chunk : x->n;
        memset(s->set, 0, 3 * nb);
        s->nbatch = 0;
        for (size_t i = p0; i < p1; i++) {
            int32_t d = MG(signed_digit)(x->scalars + 32 * i, w, x->c);
            if (d == 0)
                continue;
            MA p;
            memcpy(&p, x->points + i * sizeof(MA), sizeof(MA));
            if (MG(affine_is_inf)(&p))
                continue;
            if (d < 0) {
                MG(affine_neg)(&p, &p);
                d = -d;
            }
            MG(bucket_add)(s, (uint32_t)d - 1, &p);
        }
        MG(flush)(s);
        /* Σ_d d·B_d = Σ_d (B_d + B_{d+1} + …) */
        MJ run, acc;
        MG(set_inf)(&run);
        MG(set_inf)(&acc);
        for (size_t i = nb; i-- > 0;) {
            if (s->set[i])
                MG(add_affine)(&run, &run, &s->b[i]);
            if (s->over_set[i])
                MG(add)(&run, &run, &s->over[i]);
            MG(add)(&acc, &acc, &run);
        }
        x->partial[t] = acc;
    }
    free(s->b);
    free(s->over);
    free(s->set);
    free(s);
}

/* Window size minimising (windows)·(n + 2^c) additions (2^(c−1) buckets,
 * two additions each to sum them). */
static unsigned MG(msm_window)(size_t n)
{
    unsigned best = 2;
    double best_cost = 1e300;
    for (unsigned c = 2; c <= 20; c++) {
        double windows = (double)(MSM_SCALAR_BITS / c + 1);
        double cost = windows * ((double)n + (double)(1u << c));
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
    /* one window more than bits/c holds the last borrow of the signed digits */
    x.nwin = MSM_SCALAR_BITS / x.c + 1;
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
#undef MF
#undef MJ
#undef MA
#undef MT
#undef MSM_BATCH
#undef MSM_CAT
#undef MSM_CAT2
#undef MSM_GROUP
#undef MSM_FIELD
#undef MSM_SCALAR_BITS
