/*
 * fixed_base_tmpl.h — fixed-base scalar multiplication with window tables
 * (see fixed_base.h). A "C template": define
 *   FB_GROUP  group prefix (e.g. bn254_g1; needs curve_tmpl.h's types and
 *             functions)
 *   FB_FIELD  its coordinate field prefix (bn254_fp, bn254_fp2, …)
 * then include. It defines the functions declared in fixed_base.h.
 *
 * Method (the textbook fixed-base comb with one table row per window, e.g.
 * Handbook of Applied Cryptography §14.6.3 / Menezes et al.): k is cut into
 * windows of w bits, k = Σ_j d_j·2^(w·j); the table holds every d·2^(w·j)·P,
 * so k·P = Σ_j T[j][d_j] — ⌈256/w⌉ mixed additions and no doublings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define FB_CAT2(a, b) a##_##b
#define FB_CAT(a, b) FB_CAT2(a, b)
#define FG(name) FB_CAT(FB_GROUP, name)
#define FF(name) FB_CAT(FB_FIELD, name)
#define FJ FB_CAT(FB_GROUP, jac_t)
#define FA FB_CAT(FB_GROUP, affine_t)
#define FT FB_CAT(FB_FIELD, t)
#define FTAB struct FB_CAT(FB_GROUP, fb_table)

#define FB_SCALAR_BITS 256
#define FB_MAX_WINDOW 16
#define FB_CHUNK 1024 /* points per batch-affine task in _mul_batch */

unsigned FG(fb_window)(size_t count)
{
    /* Work in batch-affine additions (about 6 multiplications each):
     * count·nwin lookups, plus the table (a mixed addition and an affine
     * conversion per entry, weighted as 3 of them). */
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned w = 1; w <= FB_MAX_WINDOW; w++) {
        double nwin = (FB_SCALAR_BITS + w - 1) / w;
        double cost = (double)count * nwin + 3 * nwin * (double)((1u << w) - 1);
        if (w == 1 || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

struct FG(fb_build_ctx) {
    FTAB *t;
    const FJ *row_base; /* [nwin]: 2^(w·j)·P */
    int failed;
};

/* Fills table rows [b, e): d·base_j for d = 1 .. 2^w − 1 by repeated
 * mixed addition, then one batch conversion to affine per row. */
static void FG(fb_build_rows)(void *arg, size_t b, size_t e)
{
    struct FG(fb_build_ctx) *c = arg;
    FTAB *t = c->t;
    FJ *jac = malloc(t->row * sizeof(FJ));
    FT *scratch = malloc(t->row * sizeof(FT));
    if (!jac || !scratch) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        free(jac);
        free(scratch);
        return;
    }
    for (size_t j = b; j < e; j++) {
        FA base;
        FG(to_affine)(&base, &c->row_base[j]);
        jac[0] = c->row_base[j];
        for (size_t d = 1; d < t->row; d++)
            FG(add_affine)(&jac[d], &jac[d - 1], &base);
        FG(batch_to_affine)(t->pts + j * t->row, jac, t->row, scratch);
    }
    free(jac);
    free(scratch);
}

int FG(fb_init)(FTAB *t, const FA *base, unsigned window, unsigned nthreads)
{
    memset(t, 0, sizeof(*t));
    if (window < 1 || window > FB_MAX_WINDOW)
        return -EINVAL;
    t->window = window;
    t->nwin = (FB_SCALAR_BITS + window - 1) / window;
    t->row = ((size_t)1 << window) - 1;
    t->pts = malloc((size_t)t->nwin * t->row * sizeof(FA));
    FJ *row_base = malloc(t->nwin * sizeof(FJ));
    if (!t->pts || !row_base) {
        free(row_base);
        FG(fb_free)(t);
        return -ENOMEM;
    }
    FG(from_affine)(&row_base[0], base);
    for (unsigned j = 1; j < t->nwin; j++) {
        row_base[j] = row_base[j - 1];
        for (unsigned s = 0; s < window; s++)
            FG(dbl)(&row_base[j], &row_base[j]);
    }
    struct FG(fb_build_ctx) c = { .t = t, .row_base = row_base, .failed = 0 };
    parallel_for(t->nwin, 1, nthreads, FG(fb_build_rows), &c);
    free(row_base);
    if (c.failed) {
        FG(fb_free)(t);
        return -ENOMEM;
    }
    return 0;
}

void FG(fb_free)(FTAB *t)
{
    free(t->pts);
    t->pts = NULL;
}

void FG(fb_mul)(FJ *ret, const FTAB *t, const uint64_t k[4])
{
    FJ acc;
    FG(set_inf)(&acc);
    const uint64_t mask = ((uint64_t)1 << t->window) - 1;
    for (unsigned j = 0; j < t->nwin; j++) {
        unsigned bit = j * t->window, limb = bit / 64, off = bit % 64;
        uint64_t d = k[limb] >> off;
        if (off + t->window > 64 && limb + 1 < 4)
            d |= k[limb + 1] << (64 - off);
        d &= mask;
        if (d)
            FG(add_affine)(&acc, &acc, &t->pts[j * t->row + (d - 1)]);
    }
    *ret = acc;
}

struct FG(fb_batch_ctx) {
    FA *out;
    const FTAB *t;
    const uint64_t (*k)[4];
    int failed;
};

/* Window digit j of k. */
static inline uint64_t FG(fb_digit)(const FTAB *t, const uint64_t k[4], unsigned j)
{
    unsigned bit = j * t->window, limb = bit / 64, off = bit % 64;
    uint64_t d = k[limb] >> off;
    if (off + t->window > 64 && limb + 1 < 4)
        d |= k[limb + 1] << (64 - off);
    return d & (((uint64_t)1 << t->window) - 1);
}

/*
 * Points [b, e) of a batch, all windows in lockstep with affine
 * accumulators: in each window every point that adds a table entry needs
 * 1/(x_T − x_acc), and one inversion serves them all (Montgomery's trick),
 * so an addition costs about 6 multiplications instead of a mixed Jacobian
 * addition's 11, and no conversion to affine is left at the end. An
 * accumulator equal to ±T (vanishingly rare for these scalars, but handled)
 * is doubled or cleared on its own.
 */
static void FG(fb_batch_chunk)(void *arg, size_t b, size_t e)
{
    struct FG(fb_batch_ctx) *c = arg;
    const FTAB *t = c->t;
    size_t m = e - b;
    FA *acc = c->out + b;
    FT *den = malloc(m * sizeof(FT)), *pre = malloc(m * sizeof(FT));
    const FA **tp = malloc(m * sizeof(*tp));
    size_t *idx = malloc(m * sizeof(*idx));
    unsigned char *inf = malloc(m);
    if (!den || !pre || !tp || !idx || !inf) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        goto out;
    }
    memset(inf, 1, m);
    for (unsigned j = 0; j < t->nwin; j++) {
        size_t na = 0;
        for (size_t i = 0; i < m; i++) {
            uint64_t d = FG(fb_digit)(t, c->k[b + i], j);
            if (!d)
                continue;
            const FA *T = &t->pts[j * t->row + (d - 1)];
            if (inf[i]) {
                acc[i] = *T;
                inf[i] = 0;
                continue;
            }
            FT dx;
            FF(sub)(&dx, &T->x, &acc[i].x);
            if (FF(is_zero)(&dx)) {
                if (FF(eq)(&T->y, &acc[i].y)) { /* acc = T: double */
                    FJ jac;
                    FG(from_affine)(&jac, &acc[i]);
                    FG(dbl)(&jac, &jac);
                    FG(to_affine)(&acc[i], &jac);
                    inf[i] = (unsigned char)FG(is_inf)(&jac);
                } else {                          /* acc = −T */
                    inf[i] = 1;
                }
                continue;
            }
            den[na] = dx;
            tp[na] = T;
            idx[na++] = i;
        }
        if (na == 0)
            continue;
        FT run, inv;
        FF(set_one)(&run);
        for (size_t a = 0; a < na; a++) {
            pre[a] = run;
            FF(mul)(&run, &run, &den[a]);
        }
        FF(inv)(&inv, &run);
        for (size_t a = na; a-- > 0;) {
            FT dinv, lambda, x3, y3;
            FA *p = &acc[idx[a]];
            const FA *T = tp[a];
            FF(mul)(&dinv, &inv, &pre[a]);      /* 1/(x_T − x_acc) */
            FF(mul)(&inv, &inv, &den[a]);
            FF(sub)(&lambda, &T->y, &p->y);
            FF(mul)(&lambda, &lambda, &dinv);
            FF(sqr)(&x3, &lambda);
            FF(sub)(&x3, &x3, &p->x);
            FF(sub)(&x3, &x3, &T->x);           /* x3 = λ² − x1 − x2 */
            FF(sub)(&y3, &p->x, &x3);
            FF(mul)(&y3, &y3, &lambda);
            FF(sub)(&y3, &y3, &p->y);           /* y3 = λ(x1 − x3) − y1 */
            p->x = x3;
            p->y = y3;
        }
    }
    for (size_t i = 0; i < m; i++)
        if (inf[i])
            FG(affine_set_inf)(&acc[i]);
out:
    free(den);
    free(pre);
    free(tp);
    free(idx);
    free(inf);
}

int FG(fb_mul_batch)(FA *out, const FTAB *t, const uint64_t (*k)[4], size_t n,
                     unsigned nthreads)
{
    struct FG(fb_batch_ctx) c = { .out = out, .t = t, .k = k, .failed = 0 };
    parallel_for(n, FB_CHUNK, nthreads, FG(fb_batch_chunk), &c);
    return c.failed ? -ENOMEM : 0;
}

#undef FB_CAT2
#undef FB_CAT
#undef FG
#undef FF
#undef FJ
#undef FA
#undef FT
#undef FTAB
#undef FB_SCALAR_BITS
#undef FB_MAX_WINDOW
#undef FB_CHUNK
#undef FB_GROUP
#undef FB_FIELD
