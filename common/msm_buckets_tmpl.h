/*
 * msm_buckets_tmpl.h — the bucket state of msm_tmpl.h's windows: affine
 * buckets filled by batch-affine additions (one inversion per batch,
 * Montgomery's trick; a point whose bucket is busy waits in a queue, or
 * with the queue full goes to the bucket's Jacobian overflow), and the
 * weighted bucket sums (Jacobian running sums, or batch-affine ones over
 * 64 segments side by side). Part of msm_tmpl.h, which includes it with
 * MG, MF, MA, MJ, MT, MSM_BATCH, MSM_QUEUE and MSM_SEGS defined (and
 * optionally MSM_ADD_BATCH_LANES(dst, dst_set, src, n, den, pre) with
 * MSM_ADD_BATCH_LANES_ON(): add_batch in vector lanes); not for use on its
 * own. (Technique: Pippenger's bucket method with batch-affine
 * accumulation as described in the ZPrize MSM write-ups; our own code.)
 */
struct MG(buckets) {
    MA *b;              /* affine bucket sums */
    MJ *over;           /* overflow accumulators (Jacobian) */
    uint8_t *set;       /* b[i] holds a point */
    uint8_t *over_set;  /* over[i] is not infinity */
    uint8_t *busy;      /* an addition into b[i] is pending in the batch */
    uint32_t idx[MSM_BATCH];
    MA pt[MSM_BATCH];
    MT den[MSM_BATCH], pre[MSM_BATCH];
    unsigned nbatch, batch; /* pending additions, batch size (≤ MSM_BATCH) */
    unsigned qmax;          /* queue size used (≤ MSM_QUEUE) */
    uint32_t qidx[MSM_QUEUE]; /* points whose bucket was busy, for a later */
    MA qpt[MSM_QUEUE];        /* batch                                      */
    unsigned nq;
    int any_over;             /* an overflow accumulator was used */
    uint32_t *cnt;            /* per digit: points so far (copies, msm_task) */
    MA *dst[MSM_BATCH];       /* the batch's targets (flush, buckets_sum) */
    uint8_t *dst_set[MSM_BATCH];
    const MA *src[MSM_BATCH];
    MA seg_run[MSM_SEGS], seg_acc[MSM_SEGS]; /* buckets_sum's segments */
    uint8_t seg_run_set[MSM_SEGS], seg_acc_set[MSM_SEGS];
};

/* *dst[i] += *src[i] for i < n, affine, with one inversion (Montgomery's
 * trick): λ = (y_P − y_B)/(x_P − x_B), or 3x²/2y when P = B; a sum at
 * infinity (P = −B) clears *dst_set[i]. The dst[i] are distinct and not at
 * infinity, nor are the src[i]; a src may be another entry's dst only if
 * that one is not in this batch. The inversion is the variable-time one
 * (GMP's extended Euclid, ~30 products on BLS12-381 Fq against ~500 for
 * a^(p−2)): this code branches on point data anyway. den, pre: n scratch
 * elements each. */
static void MG(add_batch)(MA *const *dst, uint8_t *const *dst_set, const MA *const *src,
                          unsigned n, MT *den, MT *pre)
{
    MT acc, inv, t, lambda, x3;
    if (!n)
        return;
#ifdef MSM_ADD_BATCH_LANES
    /* the including file's vector version (e.g. AVX-512 IFMA), for batches
     * large enough to pay for its lanes' shared inversion */
    if (n >= 16 && MSM_ADD_BATCH_LANES_ON()) {
        MSM_ADD_BATCH_LANES(dst, dst_set, src, n, den, pre);
        return;
    }
#endif
    MF(set_one)(&acc);
    for (unsigned i = 0; i < n; i++) {
        MG(affine_add_den)(&den[i], dst[i], src[i]); /* x_P − x_B, 2y, or 0 (P = −B) */
        pre[i] = acc;
        if (!MF(is_zero)(&den[i]))
            MF(mul)(&acc, &acc, &den[i]);
    }
    MF(inv_vartime)(&inv, &acc);
    for (unsigned i = n; i-- > 0;) {
        MA *B = dst[i];
        const MA *P = src[i];
        if (MF(is_zero)(&den[i])) {
            *dst_set[i] = 0;                      /* B + (−B) */
            continue;
        }
        MF(mul)(&t, &inv, &pre[i]);               /* 1/den[i] */
        MF(mul)(&inv, &inv, &den[i]);
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
}

/* Completes the pending additions b[idx[i]] += pt[i] (one add_batch). */
static void MG(flush)(struct MG(buckets) *s)
{
    unsigned n = s->nbatch;
    for (unsigned i = 0; i < n; i++) {
        uint32_t bi = s->idx[i];
        s->dst[i] = &s->b[bi];
        s->dst_set[i] = &s->set[bi];
        s->src[i] = &s->pt[i];
        s->busy[bi] = 0;
    }
    MG(add_batch)(s->dst, s->dst_set, s->src, n, s->den, s->pre);
    s->nbatch = 0;
}

/* Puts p into bucket bi: directly if empty, else into the batch; if the
 * bucket already has an addition pending, into the queue for the next batch
 * (or, with the queue full, into the bucket's Jacobian overflow). */
static void MG(bucket_put)(struct MG(buckets) *s, uint32_t bi, const MA *p)
{
    if (!s->set[bi]) {
        s->b[bi] = *p;
        s->set[bi] = 1;
    } else if (s->busy[bi]) {
        if (s->nq < s->qmax) {
            s->qidx[s->nq] = bi;
            s->qpt[s->nq++] = *p;
            return;
        }
        if (s->over_set[bi])
            MG(add_affine)(&s->over[bi], &s->over[bi], p);
        else
            MG(from_affine)(&s->over[bi], p);
        s->over_set[bi] = 1;
        s->any_over = 1;
    } else {
        s->busy[bi] = 1;
        s->idx[s->nbatch] = bi;
        s->pt[s->nbatch++] = *p;
        if (s->nbatch == s->batch)
            MG(flush)(s);
    }
}

/* Re-puts the queued points (after a flush, when no bucket is busy). */
static void MG(drain)(struct MG(buckets) *s)
{
    unsigned n = s->nq;
    s->nq = 0;
    for (unsigned i = 0; i < n; i++) {
        MA p = s->qpt[i];   /* re-queued entries go to slots <= i */
        MG(bucket_put)(s, s->qidx[i], &p);
    }
}

static void MG(bucket_add)(struct MG(buckets) *s, uint32_t bi, const MA *p)
{
    unsigned before = s->nbatch;
    MG(bucket_put)(s, bi, p);
    if (before == s->batch - 1 && s->nbatch == 0) /* it flushed */
        MG(drain)(s);
}

/* Completes every pending and queued addition. */
static void MG(finish)(struct MG(buckets) *s)
{
    while (s->nbatch || s->nq) {
        MG(flush)(s);
        MG(drain)(s);
    }
}

/* Bucket state for nb buckets, batches of `batch` additions (≤ MSM_BATCH),
 * or NULL when out of memory. */
static struct MG(buckets) *MG(buckets_new)(size_t nb, unsigned batch)
{
    struct MG(buckets) *s = malloc(sizeof(*s));
    if (!s)
        return NULL;
    s->b = malloc(nb * sizeof(MA));
    s->over = malloc(nb * sizeof(MJ));
    s->set = malloc(3 * nb);
    s->cnt = malloc(nb * sizeof(uint32_t));
    if (!s->b || !s->over || !s->set || !s->cnt) {
        free(s->b);
        free(s->over);
        free(s->set);
        free(s->cnt);
        free(s);
        return NULL;
    }
    s->over_set = s->set + nb;
    s->busy = s->set + 2 * nb;
    memset(s->set, 0, 3 * nb);
    s->nbatch = s->nq = 0;
    s->any_over = 0;
    s->batch = batch;
    s->qmax = batch / 2;
    return s;
}

static void MG(buckets_free)(struct MG(buckets) *s)
{
    free(s->cnt);
    free(s->b);
    free(s->over);
    free(s->set);
    free(s);
}

/* Σ of buckets [0, nb) weighted 1 (weights = 0) or d+1 (running sums), in
 * Jacobian coordinates: for the 0/1 sums, few buckets, or an overflow
 * accumulator in use (skewed input). */
static void MG(buckets_sum)(MJ *ret, const struct MG(buckets) *s, size_t nb,
                            int weighted)
{
    MJ run, acc;
    MG(set_inf)(&run);
    MG(set_inf)(&acc);
    for (size_t i = nb; i-- > 0;) {
        if (s->set[i])
            MG(add_affine)(&run, &run, &s->b[i]);
        if (s->over_set[i])
            MG(add)(&run, &run, &s->over[i]);
        if (weighted)
            MG(add)(&acc, &acc, &run);
    }
    *ret = weighted ? acc : run;
}

/* Σ_d d·S_d, d = 1 .. D, where S_d is the sum of the copies b[d−1 + D·j]
 * (and their overflow accumulators), j < nb/D: see msm_task's top window.
 * Jacobian: nb mixed additions and 3·D others. */
static void MG(buckets_sum_copies)(MJ *ret, const struct MG(buckets) *s, size_t nb,
                                   size_t D)
{
    MJ run, acc, sd;
    MG(set_inf)(&run);
    MG(set_inf)(&acc);
    for (size_t d = D; d-- > 0;) {
        MG(set_inf)(&sd);
        for (size_t j = d; j < nb; j += D) {
            if (s->set[j])
                MG(add_affine)(&sd, &sd, &s->b[j]);
            if (s->over_set[j])
                MG(add)(&sd, &sd, &s->over[j]);
        }
        MG(add)(&run, &run, &sd);
        MG(add)(&acc, &acc, &run);
    }
    *ret = acc;
}

/* dst[g] += src[g·stride] for g < S where src's point is set, as one
 * add_batch; an unset dst[g] takes the point as it is. */
static void MG(segments_add)(struct MG(buckets) *s, MA *dst, uint8_t *dst_set, const MA *src,
                             const uint8_t *src_set, size_t stride, unsigned S)
{
    unsigned n = 0;
    for (unsigned g = 0; g < S; g++) {
        size_t i = (size_t)g * stride;
        if (!src_set[i])
            continue;
        if (!dst_set[g]) {
            dst[g] = src[i];
            dst_set[g] = 1;
            continue;
        }
        s->dst[n] = &dst[g];
        s->dst_set[n] = &dst_set[g];
        s->src[n++] = &src[i];
    }
    MG(add_batch)(s->dst, s->dst_set, s->src, n, s->den, s->pre);
}

/* Σ_d (d+1)·B_d over buckets [0, nb) (nb a power of two ≥ 4·MSM_SEGS,
 * no overflow accumulator in use) with affine additions batched across
 * segments: the buckets are cut into S = MSM_SEGS segments of L = nb/S, and
 * the S running sums (run_s += B; acc_s += run_s, from each segment's top)
 * advance side by side, each step one add_batch for the runs and one for
 * the accs: 2 affine additions per bucket (~13 products with the
 * inversion shared by S) instead of a mixed and a Jacobian addition (~27).
 * Then acc_s = Σ_{i<L} (i+1)·B_{sL+i}, run_s = Σ_{i<L} B_{sL+i}, and the
 * sum is Σ_s acc_s + L·Σ_s s·run_s (S small Jacobian steps). */
static void MG(buckets_sum_batched)(MJ *ret, struct MG(buckets) *s, size_t nb)
{
    const unsigned S = MSM_SEGS;
    size_t L = nb / S;
    memset(s->seg_run_set, 0, S);
    memset(s->seg_acc_set, 0, S);
    for (size_t j = L; j-- > 0;) {
        MG(segments_add)(s, s->seg_run, s->seg_run_set, s->b + j, s->set + j, L, S);
        MG(segments_add)(s, s->seg_acc, s->seg_acc_set, s->seg_run, s->seg_run_set, 1, S);
    }
    MJ run, w, tot;
    MG(set_inf)(&run);
    MG(set_inf)(&w);
    MG(set_inf)(&tot);
    for (unsigned g = S; g-- > 1;) { /* w = Σ_s s·run_s */
        if (s->seg_run_set[g])
            MG(add_affine)(&run, &run, &s->seg_run[g]);
        MG(add)(&w, &w, &run);
    }
    for (size_t l = L; l > 1; l >>= 1)
        MG(dbl)(&w, &w);
    for (unsigned g = 0; g < S; g++)
        if (s->seg_acc_set[g])
            MG(add_affine)(&tot, &tot, &s->seg_acc[g]);
    MG(add)(ret, &tot, &w);
}
