/* bellperson_ntt.c - see bellperson_ntt.h. */
#include "bellperson_ntt.h"

#include <string.h>

#include "parallel.h"

/* ret = base^((r − 1) >> k), Montgomery form. */
static void pow_r_minus_1_shr(bls12381_fr_t *ret, uint64_t base, unsigned k)
{
    uint64_t e[4];
    bls12381_fr_t b;
    memcpy(e, bls12381_fr_modulus.l, sizeof e);
    e[0] -= 1;
    for (unsigned i = 0; i < k; i++) {
        for (int j = 0; j < 3; j++)
            e[j] = e[j] >> 1 | e[j + 1] << 63;
        e[3] >>= 1;
    }
    bls12381_fr_from_u64(&b, base);
    bls12381_fr_pow(ret, &b, e, 4);
}

void bp_root_of_unity(bls12381_fr_t *ret, unsigned log_n)
{
    pow_r_minus_1_shr(ret, BP_MULTIPLICATIVE_GENERATOR, log_n);
}

struct fill_ctx {
    bls12381_fr_t *v;
    const bls12381_fr_t *step;
};

static void fill(void *arg, size_t b, size_t e)
{
    struct fill_ctx *c = arg;
    bls12381_fr_t x;
    uint64_t ex[1] = { b };
    bls12381_fr_pow(&x, c->step, ex, 1);
    for (size_t i = b; i < e; i++) {
        c->v[i] = x;
        bls12381_fr_mul(&x, &x, c->step);
    }
}

int bp_domain_init(struct bls12381_ntt_domain *d, unsigned log_n, unsigned nthreads)
{
    int rc = bls12381_ntt_domain_init(d, log_n, nthreads);
    if (rc < 0)
        return rc;
    bls12381_fr_t w;
    bp_root_of_unity(&w, log_n);
    struct fill_ctx c = { d->roots, &w };
    parallel_for(d->n / 2, 4096, nthreads, fill, &c);
    bls12381_fr_from_u64(&d->shift, BP_MULTIPLICATIVE_GENERATOR);
    return 0;
}

uint64_t bp_row_map_factor(unsigned log_n)
{
    bls12381_fr_t ws, wb, ws_inv, x, one;
    pow_r_minus_1_shr(&ws, 5, log_n);
    bp_root_of_unity(&wb, log_n);
    bls12381_fr_inv(&ws_inv, &ws);
    bls12381_fr_set_one(&one);
    /* Pohlig-Hellman in the cyclic group of order 2^log_n: bit k of u from
     * (wb·ws^−u)^(2^(log_n−1−k)) */
    uint64_t u = 0;
    for (unsigned k = 0; k < log_n; k++) {
        uint64_t ue[1] = { u };
        bls12381_fr_pow(&x, &ws_inv, ue, 1);
        bls12381_fr_mul(&x, &x, &wb);
        for (unsigned s = 0; s + 1 + k < log_n; s++)
            bls12381_fr_sqr(&x, &x);
        if (!bls12381_fr_eq(&x, &one))
            u |= (uint64_t)1 << k;
    }
    return u;
}

struct qctx {
    bls12381_fr_t *a, *b, *c;
    bls12381_fr_t z_inv;
    const bls12381_fr_t *step; /* 7^-1 for the last pass */
};

static void combine(void *arg, size_t b, size_t e)
{
    struct qctx *q = arg;
    for (size_t i = b; i < e; i++) {
        bls12381_fr_t t;
        bls12381_fr_mul(&t, &q->a[i], &q->b[i]);
        bls12381_fr_sub(&t, &t, &q->c[i]);
        bls12381_fr_mul(&q->a[i], &t, &q->z_inv);
    }
}

static void unshift(void *arg, size_t b, size_t e)
{
    struct qctx *q = arg;
    bls12381_fr_t x;
    uint64_t ex[1] = { b };
    bls12381_fr_pow(&x, q->step, ex, 1);
    for (size_t i = b; i < e; i++) {
        bls12381_fr_mul(&q->a[i], &q->a[i], &x);
        bls12381_fr_mul(&x, &x, q->step);
    }
}

void bp_quotient(bls12381_fr_t *a, bls12381_fr_t *b, bls12381_fr_t *c,
                 const struct bls12381_ntt_domain *d, unsigned nthreads)
{
    /* coset_lde = iNTT, ×shift^i, NTT: the evaluations on 7·⟨ω⟩ */
    bls12381_ntt_coset_lde(a, d, nthreads);
    bls12381_ntt_coset_lde(b, d, nthreads);
    bls12381_ntt_coset_lde(c, d, nthreads);
    struct qctx q = { a, b, c, { { 0 } }, NULL };
    /* Z(7·ω^i) = 7^n − 1 for every i */
    bls12381_fr_t gn, one;
    uint64_t n[1] = { d->n };
    bls12381_fr_pow(&gn, &d->shift, n, 1);
    bls12381_fr_set_one(&one);
    bls12381_fr_sub(&gn, &gn, &one);
    bls12381_fr_inv(&q.z_inv, &gn);
    parallel_for(d->n, 4096, nthreads, combine, &q);
    bls12381_ntt_inverse(a, d, nthreads);
    bls12381_fr_t sinv;
    bls12381_fr_inv(&sinv, &d->shift);
    q.step = &sinv;
    parallel_for(d->n, 4096, nthreads, unshift, &q);
}

void bp_device_coset_constants(unsigned log_n, bls12381_fr_t *scale, bls12381_fr_t *shift_inv)
{
    bls12381_fr_t s, t, one;
    uint64_t n[1] = { (uint64_t)1 << log_n };
    bls12381_ntt_coset_shift(&s, log_n);
    bls12381_fr_inv(shift_inv, &s);
    bls12381_fr_pow(&t, &s, n, 1);
    bls12381_fr_set_one(&one);
    bls12381_fr_sub(&t, &t, &one);
    bls12381_fr_inv(scale, &t);
}
