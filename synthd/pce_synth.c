/* pce_synth.c — see pce_synth.h. */
#include "pce_synth.h"

#include <string.h>

#include "parallel.h"

struct syn_ctx {
    const struct bp_pce *p;
    const bls12381_fr_t *w;
    bls12381_fr_t *a, *b;
    size_t n;
};

static void row_dot(bls12381_fr_t *out, const struct bp_csr *m, uint64_t row,
                    const bls12381_fr_t *w)
{
    uint32_t s = bp_pce_u32(m->row_ptrs, row), t = bp_pce_u32(m->row_ptrs, row + 1);
    bls12381_fr_t acc, v, prod;
    bls12381_fr_set_zero(&acc);
    for (uint32_t k = s; k < t; k++) {
        memcpy(&v, m->vals + 32 * (uint64_t)k, 32);
        bls12381_fr_mul(&prod, &v, &w[bp_pce_u32(m->cols, k)]);
        bls12381_fr_add(&acc, &acc, &prod); /* v·R · w / R: standard form */
    }
    *out = acc; /* the slot's form (shm/payload.h): standard form */
}

static void syn_range(void *arg, size_t b, size_t end)
{
    struct syn_ctx *c = arg;
    uint64_t nc = c->p->num_constraints;
    for (size_t i = b; i < end; i++) {
        if (i < nc) {
            row_dot(&c->a[i], &c->p->m[BP_PCE_A], i, c->w);
            row_dot(&c->b[i], &c->p->m[BP_PCE_B], i, c->w);
        } else {
            bls12381_fr_set_zero(&c->a[i]);
            bls12381_fr_set_zero(&c->b[i]);
        }
    }
}

void bp_pce_synth_ab(const struct bp_pce *p, const bls12381_fr_t *w, bls12381_fr_t *a,
                     bls12381_fr_t *b, size_t domain_size, unsigned nthreads)
{
    struct syn_ctx x = { p, w, a, b, domain_size };
    parallel_for(domain_size, 4096, nthreads, syn_range, &x);
}
