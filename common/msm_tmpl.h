/*
 * msm_tmpl.h — multi-scalar multiplication Σ k_i·P_i by Pippenger's bucket
 * method, multi-threaded. A "C template": define
 *   MSM_GROUP        group prefix (e.g. bn254_g1; needs curve_tmpl.h's types
 *                    and functions)
 *   MSM_FIELD        its coordinate field prefix (bn254_fp, bn254_fp2, …)
 *   MSM_SCALAR_BITS  bits of the scalar field (254 BN254, 255 BLS12-381)
 * and, for a group with an endomorphism (G1: GLV; BLS12-381 G2: ψ; glv.h):
 *   MSM_ENDO_PARTS   parts a scalar splits into (2 GLV, 4 ψ)
 *   MSM_ENDO_BITS    bound on the parts' bits (≤ 128)
 *   MSM_ENDO_SPLIT(k, m, neg)  int; k: 4 limbs; fills m[PARTS][2] with the
 *                    parts' magnitudes, neg with their signs (bit j: part j
 *                    negative), so k·P = Σ_j ±m_j·E^j(P); 0 or < 0 on failure
 *   MSM_ENDO_MAP(out, in)  out = E(in) on affine points (E(∞) = ∞)
 * then include. It defines MSM_GROUP##_msm, declared in msm.h. The bucket
 * state and sums are in msm_buckets_tmpl.h (included from here).
 *
 * Method:
 * - Scalars are cut into windows of c bits, recoded as signed digits in
 *   [−2^(c−1), 2^(c−1)] (a digit above half borrows from the next window),
 *   so each window needs 2^(c−1) buckets and −P is free (negate y).
 * - Buckets are affine. Points are added into them in batches: every
 *   addition of a batch needs 1/(x_P − x_B), and one field inversion serves
 *   the whole batch (Montgomery's trick), so an affine addition costs about
 *   6 multiplications instead of a mixed Jacobian addition's 11. A point whose
 *   bucket already has an addition pending in the batch waits in a short
 *   queue for the next batch; with the queue full it goes into that bucket's
 *   Jacobian overflow accumulator (same result, old cost), which keeps
 *   skewed inputs from degenerating into one inversion per point.
 * - Each window's buckets are summed with the running-sum trick (Σ d·B_d in
 *   2·2^(c−1) additions), cut into 64 segments whose running sums advance
 *   side by side so that their additions are batch-affine too (one
 *   inversion per 64), and windows are joined by Horner's rule.
 * - Inversions are variable-time (GMP's extended Euclid, F_inv_vartime).
 * - Scalars 0 and 1 (most of a witness) do no bucket work: a first pass
 *   sorts the indices into "one" and "other" (zeros are dropped); the points
 *   with scalar 1 are summed directly (batch-affine, round-robin over 256
 *   accumulators so every batch is collision-free) and only the others go
 *   through the windows.
 * - The window size c and the number of point chunks come from a cost model
 *   of the point count and the thread count (see msm_plan).
 * - Work is split into (window, point-chunk) tasks handed out to threads.
 * - Endomorphisms (with MSM_ENDO_*): on G1, GLV splits each scalar k ≥ 2 as
 *   k ≡ k1 + k2·λ with |k1|, |k2| < 2^127 (glv.h), and k·P = k1·P + k2·φ(P),
 *   φ(P) = (β·x, y): twice the points at half the scalar length. On
 *   BLS12-381 G2, ψ (ψ(Q) = z·Q) splits k into four base-|z| digits of 64
 *   bits: four times the points at a quarter of the length. The number of
 *   point additions for a given window size stays; the windows, and with
 *   them the bucket sums, shrink, and the cost model affords wider windows.
 *   Negative parts negate their digits; zero parts (small k) and points at
 *   infinity are dropped before the windows. The images E^j(P) are computed
 *   per call into a table (one Fq product per point and part on G1, two Fp2
 *   products on G2; below 1% of the MSM) rather than kept per key.
 *   Measured side by side on 2 cores (make bench-cpu), the split pays where
 *   the bucket sums weigh: witness MSMs (a few thousand to ~20k scalars ≥ 2)
 *   1.1–1.3× faster; with 2^15 or more dense scalars (the H MSM) it was level
 *   at 2^15 and 4–9% slower at 2^16 (the wider windows' buckets outgrow the
 *   L2 cache, and the split itself costs), so it is used below
 *   MSM_ENDO_MAX_N scalars ≥ 2 only. That also bounds the table and the
 *   parts: at most 6 MiB + 4 MiB (BLS12-381 G2), freed after the call.
 * (Techniques as in the literature on Pippenger/bucket MSM with batch-affine
 * accumulation, e.g. the ZPrize MSM write-ups; this code is our own.)
 */
#include <errno.h>
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
#define MSM_BATCH 1024 /* largest batch; the one used is buckets/2 */
#define MSM_QUEUE 512
#define MSM_SEGS 64 /* bucket-sum segments summed side by side */
#define MSM_PREFETCH 8 /* points prefetched ahead in a window's pass */

/* One half of a split scalar: magnitude (LE), point (raw), sign. */
struct MG(glv_ent) {
    uint64_t k[2];
    const uint8_t *pt;
    uint64_t neg;
};

struct MG(msm_ctx) {
    const uint8_t *points;  /* affine points, raw (possibly unaligned) */
    const uint8_t *scalars; /* 32 bytes each, standard form LE */
    const uint32_t *idx;    /* the n indices (into points/scalars) to use */
    const struct MG(glv_ent) *ent; /* or, when not NULL, the n split halves */
    size_t n;
    unsigned bits;          /* scalar bits (MSM_SCALAR_BITS, or the GLV bound) */
    unsigned c;             /* window bits */
    unsigned nwin;
    size_t chunk;           /* points per task */
    size_t nchunks;
    MJ *partial;            /* [nwin][nchunks] window sums */
    atomic_int failed;      /* a worker could not allocate its buckets */
};

/* Bits [bit, bit+c) of an nbytes-byte little-endian scalar (c ≤ 24); 0
 * past its end. */
static inline uint32_t MG(raw_digit)(const uint8_t *k, unsigned bit, unsigned c,
                                     unsigned nbytes)
{
    unsigned byte = bit >> 3;
    uint32_t v = 0;
    if (byte + 4 <= nbytes) { /* one load (little-endian host, as the file) */
        memcpy(&v, k + byte, 4);
    } else {
        for (unsigned i = 0; i < 4 && byte + i < nbytes; i++)
            v |= (uint32_t)k[byte + i] << (8 * i);
    }
    return (v >> (bit & 7)) & ((1u << c) - 1);
}

/* Signed digit of window w: raw digit plus the borrow carried up from the
 * windows below, minus 2^c when it exceeds 2^(c−1) (that borrow then goes to
 * window w+1). The borrow into window w is 1 iff raw digit w−1 exceeds
 * 2^(c−1), is 0 iff it is below, and is the borrow into window w−1 iff it
 * equals 2^(c−1) (then v = half exactly passes the borrow on unchanged):
 * so one look below almost always decides it. */
static inline int32_t MG(signed_digit)(const uint8_t *k, unsigned w, unsigned c,
                                       unsigned nbytes)
{
    uint32_t half = 1u << (c - 1), carry = 0;
    for (unsigned i = w; i-- > 0;) {
        uint32_t r = MG(raw_digit)(k, i * c, c, nbytes);
        if (r != half) {
            carry = r > half;
            break;
        }
    }
    uint32_t v = MG(raw_digit)(k, w * c, c, nbytes) + carry;
    return (int32_t)v - (int32_t)((uint32_t)(v > half) << c);
}

#include "msm_buckets_tmpl.h"

static void MG(msm_task)(void *arg, size_t b, size_t e)
{
    struct MG(msm_ctx) *x = arg;
    size_t nb = (size_t)1 << (x->c - 1);
    /* batches of a quarter of the buckets (32 .. MSM_BATCH), collisions
     * absorbed by the queue. With the Fermat inversion (~500 products on
     * BLS12-381) half the buckets had measured best; with the variable-time
     * one (~30 products) a quarter does: BLS12-381 2^15 on one thread, CPU
     * time against half: G2 witness MSM 7% less, dense G1 2% less */
    size_t batch = nb / 4 < 32 ? 32 : nb / 4 > MSM_BATCH ? MSM_BATCH : nb / 4;
    struct MG(buckets) *s = MG(buckets_new)(nb, (unsigned)batch);
    if (!s) {
        atomic_store(&x->failed, 1);
        return;
    }
    for (size_t t = b; t < e; t++) {
        unsigned w = (unsigned)(t / x->nchunks);
        size_t ch = t % x->nchunks;
        size_t p0 = ch * x->chunk, p1 = p0 + x->chunk < x->n ? p0 + x->chunk : x->n;
        memset(s->set, 0, 3 * nb);
        s->nbatch = s->nq = 0;
        s->any_over = 0;
        /* A window holding only the scalars' top tb ≤ c − 3 bits has
         * digits 1 .. D = 2^tb (with the borrow; none negative): so few
         * buckets that a batch never fills, the queue overflows and nearly
         * every point goes to a bucket's Jacobian overflow (the dense G1
         * MSM at c = 12: D = 8 of 2048 buckets; GLV parts of 127 bits at
         * c = 11: 64 of 1024). There each digit gets nb/D copies, taken in
         * turn: bucket d−1 + D·(k mod nb/D) for the digit's k-th point. */
        unsigned tb = x->bits > w * x->c ? x->bits - w * x->c : 0;
        size_t D = 0;
        if (tb + 3 <= x->c) {
            D = (size_t)1 << tb;
            memset(s->cnt, 0, D * sizeof(uint32_t));
        }
        for (size_t i = p0; i < p1; i++) {
            int32_t d;
            const uint8_t *pp;
            if (i + MSM_PREFETCH < p1) { /* the point a few entries on: the
                                          * loads otherwise stall here */
                const uint8_t *q = x->ent ? x->ent[i + MSM_PREFETCH].pt
                                          : x->points + (size_t)x->idx[i + MSM_PREFETCH] * sizeof(MA);
                __builtin_prefetch(q);
                __builtin_prefetch(q + sizeof(MA) - 1);
            }
            if (x->ent) {
                const struct MG(glv_ent) *en = &x->ent[i];
                d = MG(signed_digit)((const uint8_t *)en->k, w, x->c, 16);
                if (en->neg)
                    d = -d;
                pp = en->pt;
            } else {
                size_t k = x->idx[i];
                d = MG(signed_digit)(x->scalars + 32 * k, w, x->c, 32);
                pp = x->points + k * sizeof(MA);
            }
            if (d == 0)
                continue;
            MA p;
            memcpy(&p, pp, sizeof(MA));
            if (MG(affine_is_inf)(&p))
                continue;
            if (d < 0) {
                MG(affine_neg)(&p, &p);
                d = -d;
            }
            if (D) {
                uint32_t k = s->cnt[d - 1]++;
                MG(bucket_add)(s, (uint32_t)(d - 1 + D * (k & (nb / D - 1))), &p);
                continue;
            }
            MG(bucket_add)(s, (uint32_t)d - 1, &p);
        }
        MG(finish)(s);
        /* Σ_d d·B_d = Σ_d (B_d + B_{d+1} + …) */
        if (D)
            MG(buckets_sum_copies)(&x->partial[t], s, nb, D);
        else if (nb >= 4 * MSM_SEGS && !s->any_over)
            MG(buckets_sum_batched)(&x->partial[t], s, nb);
        else
            MG(buckets_sum)(&x->partial[t], s, nb, 1);
    }
    MG(buckets_free)(s);
}

/* Points with scalar 1: task t sums points idx[t·chunk …] into 256
 * accumulators taken in turn (so a batch of 256 never collides). */
#define MSM_ONES_ACC 256
static void MG(ones_task)(void *arg, size_t b, size_t e)
{
    struct MG(msm_ctx) *x = arg;
    struct MG(buckets) *s = MG(buckets_new)(MSM_ONES_ACC, MSM_ONES_ACC);
    if (!s) {
        atomic_store(&x->failed, 1);
        return;
    }
    for (size_t t = b; t < e; t++) {
        size_t p0 = t * x->chunk, p1 = p0 + x->chunk < x->n ? p0 + x->chunk : x->n;
        memset(s->set, 0, 3 * MSM_ONES_ACC);
        s->nbatch = s->nq = 0;
        for (size_t i = p0; i < p1; i++) {
            MA p;
            memcpy(&p, x->points + x->idx[i] * sizeof(MA), sizeof(MA));
            if (!MG(affine_is_inf)(&p))
                MG(bucket_add)(s, (uint32_t)(i % MSM_ONES_ACC), &p);
        }
        MG(finish)(s);
        MG(buckets_sum)(&x->partial[t], s, MSM_ONES_ACC, 0);
    }
    MG(buckets_free)(s);
}

/* Chooses the window size c and the point chunks per window for n points
 * with scalars of `bits` bits (⌊bits/c⌋ + 1 windows) on nthreads threads by
 * minimising an estimated wall time, in field multiplications: a task (one
 * window over one chunk of m points) costs about 7·m (one batch-affine
 * addition, ~6 products plus the amortised inversion, and the digit) plus
 * 15·2^(c−1) (summing its buckets: two batch-affine additions each, see
 * buckets_sum_batched); tasks run ⌈tasks/threads⌉ deep. (Re-fitted when
 * the inversion became GMP's and the bucket sums batch-affine: 8 and 27
 * before. BLS12-381 2^15 dense G1, one thread, CPU time by c: 10: 274 ms,
 * 11: 257, 12: 234 (the model's choice now), 13: 238.) With an endomorphism, n counts the
 * parts (up to 2 or 4 per point) and bits is the parts' bound (127, 64): at
 * 2^15 dense G1 scalars on 2 threads that moves c from 11 (24 windows) to
 * 13 (10 windows). The model assumes every point has a digit in every
 * window; small scalars (which only reach the low windows) make it
 * overestimate the additions. */
static void MG(msm_plan)(size_t n, unsigned nthreads, unsigned bits, unsigned *c_out,
                         size_t *chunks_out)
{
    double best = 1e300;
    *c_out = 2;
    *chunks_out = 1;
    for (unsigned c = 2; c <= 20; c++) {
        size_t nwin = bits / c + 1;
        for (size_t ch = 1; ch <= 4 * (size_t)nthreads && ch <= n; ch++) {
            size_t tasks = nwin * ch, depth = (tasks + nthreads - 1) / nthreads;
            double m = (double)((n + ch - 1) / ch);
            double cost = (double)depth * (7.0 * m + 15.0 * (double)(1u << (c - 1)));
            if (cost < best) {
                best = cost;
                *c_out = c;
                *chunks_out = ch;
            }
        }
    }
}

/* Runs the windows over x's n points (x.idx/scalars/points or x.ent, and
 * x.bits set): ret = their sum. */
static int MG(msm_run)(MJ *ret, struct MG(msm_ctx) *xp, unsigned nthreads)
{
    struct MG(msm_ctx) x = *xp;
    size_t n = x.n;
    MG(set_inf)(ret);
    if (n == 0)
        return 0;
    MG(msm_plan)(n, nthreads, x.bits, &x.c, &x.nchunks);
    /* one window more than bits/c holds the last borrow of the signed digits */
    x.nwin = x.bits / x.c + 1;
    x.chunk = (n + x.nchunks - 1) / x.nchunks;
    size_t ntasks = (size_t)x.nwin * x.nchunks;
    x.partial = malloc(ntasks * sizeof(MJ));
    if (!x.partial)
        return -ENOMEM;
    atomic_init(&x.failed, 0);
    parallel_for(ntasks, 1, nthreads, MG(msm_task), &x);
    if (atomic_load(&x.failed)) {
        free(x.partial);
        return -ENOMEM;
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

#ifdef MSM_ENDO_PARTS
#define MSM_NP MSM_ENDO_PARTS
#define MSM_ENDO_MAX_N ((size_t)1 << 15)

struct MG(endo_ctx) {
    const uint8_t *points, *scalars;
    const uint32_t *idx;     /* the indices */
    struct MG(glv_ent) *ent; /* MSM_NP per index: m_j·E^j(P) */
    MA *img;                 /* E^j(P), j = 1 .. MSM_NP−1, per index */
    atomic_int failed;       /* a scalar did not split (never, see glv.h) */
};

static void MG(endo_task)(void *arg, size_t b, size_t e)
{
    struct MG(endo_ctx) *g = arg;
    for (size_t i = b; i < e; i++) {
        size_t k = g->idx[i];
        uint64_t s[4], m[MSM_NP][2];
        unsigned neg;
        struct MG(glv_ent) *en = &g->ent[MSM_NP * i];
        MA *img = &g->img[(MSM_NP - 1) * i];
        memcpy(s, g->scalars + 32 * k, 32);
        if (MSM_ENDO_SPLIT(s, m, &neg) < 0) {
            atomic_store(&g->failed, 1);
            return;
        }
        MA p;
        memcpy(&p, g->points + k * sizeof(MA), sizeof(MA));
        int inf = MG(affine_is_inf)(&p);
        for (unsigned j = 0; j < MSM_NP; j++) {
            en[j].k[0] = inf ? 0 : m[j][0];
            en[j].k[1] = inf ? 0 : m[j][1];
            en[j].neg = (neg >> j) & 1;
            en[j].pt = j == 0 ? g->points + k * sizeof(MA) : (const uint8_t *)&img[j - 1];
            if (j > 0 && !inf)
                MSM_ENDO_MAP(&img[j - 1], j == 1 ? &p : &img[j - 2]);
        }
    }
}

/* Σ k_i·P_i over the n indices idx (scalars ≥ 2) with the scalars split
 * (k·P = Σ_j ±m_j·E^j(P)). Returns 1 if a scalar did not split (the caller
 * then takes the plain path), 0, or -ENOMEM. */
static int MG(msm_endo)(MJ *ret, const void *points, const void *scalars,
                        const uint32_t *idx, size_t n, unsigned nthreads)
{
    MG(set_inf)(ret);
    struct MG(endo_ctx) g = { .points = points, .scalars = scalars, .idx = idx };
    g.ent = malloc(MSM_NP * n * sizeof(*g.ent) + 1);
    g.img = malloc((MSM_NP - 1) * n * sizeof(MA) + 1);
    int rc = 0;
    if (!g.ent || !g.img)
        rc = -ENOMEM;
    if (rc == 0) {
        atomic_init(&g.failed, 0);
        parallel_for(n, 1024, nthreads, MG(endo_task), &g);
        if (atomic_load(&g.failed))
            rc = 1;
    }
    if (rc == 0) {
        size_t ne = 0; /* drop zero parts (and points at infinity) */
        for (size_t i = 0; i < MSM_NP * n; i++)
            if (g.ent[i].k[0] | g.ent[i].k[1])
                g.ent[ne++] = g.ent[i];
        struct MG(msm_ctx) x = { .ent = g.ent, .n = ne, .bits = MSM_ENDO_BITS };
        rc = MG(msm_run)(ret, &x, nthreads);
    }
    free(g.ent);
    free(g.img);
    return rc;
}
#endif

/* Σ k_i·P_i over the n indices idx of points/scalars (scalars ≥ 2). */
static int MG(msm_windows)(MJ *ret, const void *points, const void *scalars,
                           const uint32_t *idx, size_t n, unsigned nthreads)
{
#ifdef MSM_ENDO_PARTS
    if (n < MSM_ENDO_MAX_N && !getenv("SLOTPROVE_NO_GLV")) {
        int rc = MG(msm_endo)(ret, points, scalars, idx, n, nthreads);
        if (rc <= 0)
            return rc;
    }
#endif
    struct MG(msm_ctx) x = { .points = points, .scalars = scalars, .idx = idx, .n = n,
                             .bits = MSM_SCALAR_BITS };
    return MG(msm_run)(ret, &x, nthreads);
}

/* Σ P_i over the n indices idx of points. */
static int MG(msm_ones)(MJ *ret, const void *points, const uint32_t *idx, size_t n,
                        unsigned nthreads)
{
    MG(set_inf)(ret);
    if (n == 0)
        return 0;
    struct MG(msm_ctx) x = { .points = points, .idx = idx, .n = n };
    x.nchunks = (n + 4 * MSM_ONES_ACC - 1) / (4 * MSM_ONES_ACC);
    if (x.nchunks > 4 * (size_t)nthreads)
        x.nchunks = 4 * (size_t)nthreads;
    x.chunk = (n + x.nchunks - 1) / x.nchunks;
    x.partial = malloc(x.nchunks * sizeof(MJ));
    if (!x.partial)
        return -ENOMEM;
    atomic_init(&x.failed, 0);
    parallel_for(x.nchunks, 1, nthreads, MG(ones_task), &x);
    if (!atomic_load(&x.failed))
        for (size_t ch = 0; ch < x.nchunks; ch++)
            MG(add)(ret, ret, &x.partial[ch]);
    free(x.partial);
    return atomic_load(&x.failed) ? -ENOMEM : 0;
}

int MG(msm)(MJ *ret, const void *points, const void *scalars, size_t n, unsigned nthreads)
{
    MG(set_inf)(ret);
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return -22; /* -EINVAL: indices are 32-bit */
    if (nthreads == 0)
        nthreads = parallel_threads();
    /* ones fill idx from the front, others from the back; zeros drop out
     * (the scalar words read in host order: little-endian, like the file) */
    uint32_t *idx = malloc(n * sizeof(uint32_t));
    if (!idx)
        return -ENOMEM;
    size_t n1 = 0, nk = 0;
    const uint8_t *k = scalars;
    for (size_t i = 0; i < n; i++, k += 32) {
        uint64_t w[4];
        memcpy(w, k, 32);
        if ((w[1] | w[2] | w[3]) == 0 && w[0] <= 1) {
            if (w[0] == 1)
                idx[n1++] = (uint32_t)i;
        } else {
            idx[n - 1 - nk++] = (uint32_t)i;
        }
    }
    MJ ones;
    int rc = MG(msm_ones)(&ones, points, idx, n1, nthreads);
    if (rc == 0)
        rc = MG(msm_windows)(ret, points, scalars, idx + (n - nk), nk, nthreads);
    free(idx);
    if (rc < 0)
        return rc;
    MG(add)(ret, ret, &ones);
    return 0;
}

#ifdef MSM_SPLIT_API
/* The dense MSM in pieces (msm.h, X_msm_split_*): the caller runs the window
 * tasks itself, interleaved with other work. No 0/1 split and no
 * endomorphism: every scalar goes through the windows (a scalar 0 or 1
 * there is simply a digit 0 or 1), which is what dense scalars need. */
struct MG(msm_split) {
    struct MG(msm_ctx) x;
    uint32_t *idx;
};

int MG(msm_split_begin)(struct MG(msm_split) **out, const void *points,
                        const void *scalars, size_t n, unsigned nthreads)
{
    *out = NULL;
    if (n > UINT32_MAX)
        return -22; /* -EINVAL: indices are 32-bit */
    if (nthreads == 0)
        nthreads = parallel_threads();
    struct MG(msm_split) *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->idx = malloc(n * sizeof(uint32_t) + 1);
    struct MG(msm_ctx) *x = &s->x;
    x->points = points;
    x->scalars = scalars;
    x->n = n;
    x->bits = MSM_SCALAR_BITS;
    if (n) {
        MG(msm_plan)(n, nthreads, x->bits, &x->c, &x->nchunks);
        x->nwin = x->bits / x->c + 1;
        x->chunk = (n + x->nchunks - 1) / x->nchunks;
        x->partial = malloc((size_t)x->nwin * x->nchunks * sizeof(MJ));
    }
    if (!s->idx || (n && !x->partial)) {
        free(x->partial);
        free(s->idx);
        free(s);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        s->idx[i] = (uint32_t)i;
    x->idx = s->idx;
    atomic_init(&x->failed, 0);
    *out = s;
    return 0;
}

size_t MG(msm_split_tasks)(const struct MG(msm_split) *s)
{
    return s->x.n ? (size_t)s->x.nwin * s->x.nchunks : 0;
}

void MG(msm_split_run)(struct MG(msm_split) *s, size_t b, size_t e)
{
    MG(msm_task)(&s->x, b, e);
}

int MG(msm_split_end)(MJ *ret, struct MG(msm_split) *s)
{
    struct MG(msm_ctx) *x = &s->x;
    int rc = atomic_load(&x->failed) ? -ENOMEM : 0;
    MG(set_inf)(ret);
    if (rc == 0 && x->n)
        for (unsigned w = x->nwin; w-- > 0;) {
            if (w != x->nwin - 1)
                for (unsigned i = 0; i < x->c; i++)
                    MG(dbl)(ret, ret);
            for (size_t ch = 0; ch < x->nchunks; ch++)
                MG(add)(ret, ret, &x->partial[(size_t)w * x->nchunks + ch]);
        }
    free(x->partial);
    free(s->idx);
    free(s);
    return rc;
}
#endif

#undef MG
#undef MF
#undef MJ
#undef MA
#undef MT
#undef MSM_BATCH
#undef MSM_QUEUE
#undef MSM_SEGS
#undef MSM_PREFETCH
#undef MSM_ONES_ACC
#undef MSM_CAT
#undef MSM_CAT2
#undef MSM_GROUP
#undef MSM_FIELD
#undef MSM_SCALAR_BITS
#undef MSM_ENDO_PARTS
#undef MSM_ENDO_BITS
#undef MSM_ENDO_SPLIT
#undef MSM_ENDO_MAP
#undef MSM_ENDO_MAX_N
#undef MSM_NP
#undef MSM_SPLIT_API
#undef MSM_ADD_BATCH_LANES
#undef MSM_ADD_BATCH_LANES_ON
