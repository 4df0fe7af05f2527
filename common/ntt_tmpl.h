/*
 * ntt_tmpl.h — radix-2 number-theoretic transform over a scalar field Fr,
 * with snarkjs's roots of unity and coset shift. A "C template": define
 *   NTT_FR      field prefix (e.g. bn254_fr; needs field_tmpl.h's functions)
 *   NTT         function prefix (e.g. bn254_ntt)
 *   NTT_TWO_ADICITY  s with 2^s | r−1 (28 for BN254, 32 for BLS12-381)
 * then include. It defines the functions declared in ntt.h for that prefix.
 *
 * Roots (ffjavascript F1Field, used by snarkjs groth16_prove.js):
 *   w[s] = 5^((r−1)/2^s), ω_n = w[log2 n], coset shift ω_{2n} = w[log2 n + 1],
 *   except when log2 n = 2-adicity, where snarkjs uses Fr.shift = 5² = 25.
 * Any other primitive root permutes the Lagrange points baked into the H
 * section and no proof verifies.
 *
 * Shape of a forward transform (decimation in time): a bit-reversal pass,
 * then the first stages inside blocks of up to 4096 elements (128 KiB of
 * 4-limb values) that stay in cache while all their stages run, then the
 * remaining stages two at a time (radix-4 passes, one read and write of the
 * array per two stages). Every pass is a parallel_for over all threads with
 * about four tasks per thread, so the work spreads over every core from
 * n = 2^9 up (below that one thread does it: a task would be under 256
 * butterflies).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define NTT_CAT2(a, b) a##_##b
#define NTT_CAT(a, b) NTT_CAT2(a, b)
#define NF(name) NTT_CAT(NTT_FR, name)
#define NN(name) NTT_CAT(NTT, name)
#define NT NTT_CAT(NTT_FR, t)

/* base^((r−1) / 2^k) in Montgomery form. */
static void NN(root_pow2)(NT *ret, unsigned long base, unsigned k)
{
    uint64_t e[4];
    NT b;
    memcpy(e, NF(modulus).l, sizeof(e));
    e[0] -= 1; /* r is odd: no borrow */
    for (unsigned i = 0; i < k; i++) {
        for (int j = 0; j < 3; j++)
            e[j] = e[j] >> 1 | e[j + 1] << 63;
        e[3] >>= 1;
    }
    memset(&b, 0, sizeof(b));
    b.l[0] = base;
    NF(to_mont)(&b, &b);
    NF(pow)(ret, &b, e, 4);
}

void NN(root_of_unity)(NT *ret, unsigned log_n)
{
    NN(root_pow2)(ret, 5, log_n);
}

void NN(coset_shift)(NT *ret, unsigned log_n)
{
    if (log_n >= NTT_TWO_ADICITY) {
        memset(ret, 0, sizeof(*ret));
        ret->l[0] = 25;
        NF(to_mont)(ret, ret);
    } else {
        NN(root_pow2)(ret, 5, log_n + 1);
    }
}

struct NN(fill_ctx) {
    NT *v;
    const NT *step;   /* factor between consecutive entries */
    const NT *first;  /* value of entry 0 */
    size_t grain;
};

/* v[i] = first · step^i, computed per chunk from one pow per chunk. */
static void NN(fill_powers)(void *arg, size_t b, size_t e)
{
    struct NN(fill_ctx) *c = arg;
    NT x;
    uint64_t ex[1] = { b };
    NF(pow)(&x, c->step, ex, 1);
    NF(mul)(&x, &x, c->first);
    for (size_t i = b; i < e; i++) {
        c->v[i] = x;
        NF(mul)(&x, &x, c->step);
    }
}

int NN(domain_init)(struct NN(domain) *d, unsigned log_n, unsigned nthreads)
{
    if (log_n < 1 || log_n > NTT_TWO_ADICITY || log_n > 30)
        return -22; /* -EINVAL */
    memset(d, 0, sizeof(*d));
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    /* C11 aligned_alloc wants a size that is a multiple of the alignment */
    d->roots = aligned_alloc(64, ((d->n / 2) * sizeof(NT) + 127) & ~(size_t)63);
    if (!d->roots)
        return -ENOMEM;
    NT w, one;
    NN(root_of_unity)(&w, log_n);
    NF(set_one)(&one);
    struct NN(fill_ctx) c = { d->roots, &w, &one, 4096 };
    parallel_for(d->n / 2, 4096, nthreads, NN(fill_powers), &c);
    NN(coset_shift)(&d->shift, log_n);
    NT n_fr;
    memset(&n_fr, 0, sizeof(n_fr));
    n_fr.l[0] = d->n;
    NF(to_mont)(&n_fr, &n_fr);
    NF(inv)(&d->n_inv, &n_fr);
    return 0;
}

void NN(domain_free)(struct NN(domain) *d)
{
    free(d->roots);
    d->roots = NULL;
}

struct NN(pass_ctx) {
    NT *v;
    const struct NN(domain) *d;
    size_t half;      /* butterfly span of this stage (radix-4: first stage) */
    size_t block;     /* elements per block of the in-cache stages */
    unsigned log_n;
    const NT *scale;  /* for the scaling passes */
    const NT *first;
};

/* Elements per task of a pass over m items on nthreads threads: about four
 * tasks per thread (dynamic balance on a shared machine), at least 256 items
 * so that waking a thread stays small against the work. */
static size_t NN(grain)(size_t m, unsigned nthreads)
{
    size_t g = m / (4 * (size_t)nthreads);
    return g < 256 ? 256 : g;
}

static void NN(bitrev_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    unsigned sh = 64 - c->log_n;
    for (size_t i = b; i < e; i++) {
        uint64_t x = i;
        x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
        x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
        x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
        x = __builtin_bswap64(x) >> sh;
        if (x > i) {
            NT t = c->v[i];
            c->v[i] = c->v[x];
            c->v[x] = t;
        }
    }
}

/* Butterfly (x, y) ← (x + w·y, x − w·y); w NULL means w = 1. */
static inline void NN(bfly)(NT *x, NT *y, const NT *w)
{
    NT t;
    if (w)
        NF(mul)(&t, y, w);
    else
        t = *y;
    NF(sub)(y, x, &t);
    NF(add)(x, x, &t);
}

/* The first decimation-in-time stages (spans 1 .. block/2) over whole
 * blocks [b, e) of c->block elements each: every block is transformed while
 * it sits in cache (block·|Fr| ≤ 128 KiB, half of a small L2). */
static void NN(block_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    const NT *roots = c->d->roots;
    size_t n = c->d->n, B = c->block;
    for (size_t blk = b; blk < e; blk++) {
        NT *v = c->v + blk * B;
        for (size_t half = 1; half < B; half <<= 1) {
            size_t stride = (n / 2) / half;
            for (size_t i0 = 0; i0 < B; i0 += 2 * half) {
                NN(bfly)(&v[i0], &v[i0 + half], NULL);
                for (size_t j = 1; j < half; j++)
                    NN(bfly)(&v[i0 + j], &v[i0 + j + half], &roots[j * stride]);
            }
        }
    }
}

/* One radix-2 stage of span c->half over butterflies [b, e) of n/2. */
static void NN(stage_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    size_t half = c->half, stride = (c->d->n / 2) / half;
    for (size_t k = b; k < e; k++) {
        size_t j = k & (half - 1);
        size_t i0 = ((k - j) << 1) + j;
        NN(bfly)(&c->v[i0], &c->v[i0 + half], j ? &c->d->roots[j * stride] : NULL);
    }
}

/* Two stages at once (spans h and 2h, h = c->half) over radix-4 groups
 * [b, e) of n/4: each group {i, i+h, i+2h, i+3h} is read and written once
 * for four butterflies, halving the passes over memory. */
static void NN(radix4_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    size_t h = c->half, n = c->d->n;
    size_t s1 = (n / 2) / h, s2 = s1 / 2; /* root strides of spans h, 2h */
    const NT *roots = c->d->roots;
    for (size_t k = b; k < e; k++) {
        size_t j = k & (h - 1);
        NT *x = c->v + ((k - j) << 2) + j;
        const NT *w1 = j ? &roots[j * s1] : NULL, *w2 = j ? &roots[j * s2] : NULL;
        NN(bfly)(&x[0], &x[h], w1);
        NN(bfly)(&x[2 * h], &x[3 * h], w1);
        NN(bfly)(&x[0], &x[2 * h], w2);
        NN(bfly)(&x[h], &x[3 * h], &roots[(j + h) * s2]);
    }
}

void NN(forward)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    struct NN(pass_ctx) c = { .v = v, .d = d, .log_n = d->log_n };
    size_t n = d->n;
    if (nthreads == 0)
        nthreads = parallel_threads();
    parallel_for(n, NN(grain)(n, nthreads), nthreads, NN(bitrev_pass), &c);
    /* In-cache blocks: at most 4096 elements, and at least two blocks per
     * thread when n allows it, so that every size above a few thousand
     * elements spreads over all cores from the first stage on. */
    size_t B = n < 4096 ? n : 4096;
    while (B > 256 && n / B < 2 * (size_t)nthreads)
        B >>= 1;
    c.block = B;
    parallel_for(n / B, 1, nthreads, NN(block_pass), &c);
    c.half = B;
    if (c.half < n && ((d->log_n - __builtin_ctzll(B)) & 1)) {
        parallel_for(n / 2, NN(grain)(n / 2, nthreads), nthreads, NN(stage_pass), &c);
        c.half <<= 1;
    }
    for (; c.half < n; c.half <<= 2)
        parallel_for(n / 4, NN(grain)(n / 4, nthreads), nthreads, NN(radix4_pass), &c);
}

/* v[i] *= first · scale^i */
static void NN(scale_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    NT x;
    uint64_t ex[1] = { b };
    NF(pow)(&x, c->scale, ex, 1);
    NF(mul)(&x, &x, c->first);
    for (size_t i = b; i < e; i++) {
        NF(mul)(&c->v[i], &c->v[i], &x);
        NF(mul)(&x, &x, c->scale);
    }
}

/* Reverses v[1..n−1] in place: turns a forward transform into an inverse one
 * (Σ v_i ω^{ij} at index n−j is Σ v_i ω^{−ij}). */
static void NN(reverse_tail)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    size_t n = c->d->n;
    for (size_t i = b + 1; i < e + 1; i++) {
        size_t j = n - i;
        if (i < j) {
            NT t = c->v[i];
            c->v[i] = c->v[j];
            c->v[j] = t;
        }
    }
}

/* v ← first·scale^i · v_{−i} (indices mod n): the tail of an inverse
 * transform, with its 1/n and an optional coset scaling folded in. */
static void NN(unscramble)(NT *v, const struct NN(domain) *d, const NT *first,
                           const NT *scale, unsigned nthreads)
{
    struct NN(pass_ctx) c = { .v = v, .d = d, .log_n = d->log_n,
                              .scale = scale, .first = first };
    size_t n = d->n;
    if (nthreads == 0)
        nthreads = parallel_threads();
    parallel_for(n / 2, NN(grain)(n / 2, nthreads), nthreads, NN(reverse_tail), &c);
    parallel_for(n, NN(grain)(n, nthreads), nthreads, NN(scale_pass), &c);
}

void NN(inverse)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    NT one;
    NF(set_one)(&one);
    NN(forward)(v, d, nthreads);
    NN(unscramble)(v, d, &d->n_inv, &one, nthreads);
}

void NN(coset_lde)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    /* inverse NTT without its 1/n, folded into the coset scaling */
    NN(forward)(v, d, nthreads);
    NN(unscramble)(v, d, &d->n_inv, &d->shift, nthreads);
    NN(forward)(v, d, nthreads);
}

#undef NF
#undef NN
#undef NT
#undef NTT_CAT
#undef NTT_CAT2
#undef NTT_FR
#undef NTT
#undef NTT_TWO_ADICITY
