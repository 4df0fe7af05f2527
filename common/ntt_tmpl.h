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
 */
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
        return -12; /* -ENOMEM */
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
    size_t half;      /* butterfly span of this stage */
    unsigned log_n;
    const NT *scale;  /* for the scaling passes */
    const NT *first;
};

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

/* One decimation-in-time stage over butterflies [b, e) of n/2. */
static void NN(stage_pass)(void *arg, size_t b, size_t e)
{
    struct NN(pass_ctx) *c = arg;
    size_t half = c->half, stride = (c->d->n / 2) / half;
    for (size_t k = b; k < e; k++) {
        size_t j = k & (half - 1);
        size_t i0 = ((k - j) << 1) + j, i1 = i0 + half;
        NT t;
        if (j == 0)
            t = c->v[i1];
        else
            NF(mul)(&t, &c->v[i1], &c->d->roots[j * stride]);
        NF(sub)(&c->v[i1], &c->v[i0], &t);
        NF(add)(&c->v[i0], &c->v[i0], &t);
    }
}

void NN(forward)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    struct NN(pass_ctx) c = { .v = v, .d = d, .log_n = d->log_n };
    size_t grain = 1 << 14;
    parallel_for(d->n, grain, nthreads, NN(bitrev_pass), &c);
    for (c.half = 1; c.half < d->n; c.half <<= 1)
        parallel_for(d->n / 2, grain, nthreads, NN(stage_pass), &c);
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

void NN(inverse)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    struct NN(pass_ctx) c = { .v = v, .d = d, .log_n = d->log_n };
    NT one;
    NF(set_one)(&one);
    NN(forward)(v, d, nthreads);
    parallel_for(d->n / 2, 1 << 14, nthreads, NN(reverse_tail), &c);
    c.scale = &one;
    c.first = &d->n_inv;
    parallel_for(d->n, 1 << 14, nthreads, NN(scale_pass), &c);
}

void NN(coset_lde)(NT *v, const struct NN(domain) *d, unsigned nthreads)
{
    struct NN(pass_ctx) c = { .v = v, .d = d, .log_n = d->log_n };
    /* inverse NTT without its 1/n, folded into the coset scaling below */
    NN(forward)(v, d, nthreads);
    parallel_for(d->n / 2, 1 << 14, nthreads, NN(reverse_tail), &c);
    c.scale = &d->shift;
    c.first = &d->n_inv;
    parallel_for(d->n, 1 << 14, nthreads, NN(scale_pass), &c);
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
