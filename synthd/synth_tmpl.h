/*
 * synth_tmpl.h — Groth16 synthesis for one curve's Fr: a = A·w, b = B·w,
 * c = a∘b (the C matrix is not needed for a satisfied circuit; snarkjs
 * buildABC1, rapidsnark groth16.cpp do the same). A "C template": define SC
 * (curve prefix) and include; it defines SC##_synth_abc (synth.h).
 *
 * Coefficients are stored as v·R² (snarkjs writeFr2) and witness values in
 * standard form, so one Montgomery multiplication gives Montgomery(v·w).
 */
#include <string.h>

#include "parallel.h"

#define SC_CAT2(a, b) a##_##b
#define SC_CAT(a, b) SC_CAT2(a, b)
#define S_(name) SC_CAT(SC, name)

struct S_(synth_ctx) {
    const struct synth_index *ix;
    const struct zkey_coef *coefs;
    const S_(fr_t) *w;
    S_(fr_t) *out[2]; /* a, b */
    S_(fr_t) *c;
};

static void S_(synth_rows)(void *arg, size_t b, size_t e)
{
    struct S_(synth_ctx) *x = arg;
    for (size_t r = b; r < e; r++) {
        S_(fr_t) acc[2];
        for (int m = 0; m < 2; m++) {
            S_(fr_set_zero)(&acc[m]);
            const uint32_t *perm = x->ix->perm[m];
            for (uint32_t k = x->ix->row_start[m][r]; k < x->ix->row_start[m][r + 1]; k++) {
                const struct zkey_coef *cf = &x->coefs[perm[k]];
                S_(fr_t) v, t;
                uint32_t sig;
                memcpy(&sig, &cf->signal, 4);
                memcpy(v.l, cf->value, 32);
                S_(fr_mul)(&t, &v, &x->w[sig]);
                S_(fr_add)(&acc[m], &acc[m], &t);
            }
            x->out[m][r] = acc[m];
        }
        S_(fr_mul)(&x->c[r], &acc[0], &acc[1]);
    }
}

void S_(synth_abc)(const struct synth_index *ix, const struct zkey *zk,
                   const void *witness, void *a, void *b, void *c, unsigned nthreads)
{
    struct S_(synth_ctx) x = {
        .ix = ix, .coefs = zk->coefs, .w = witness, .out = { a, b }, .c = c,
    };
    parallel_for(zk->domain_size, 4096, nthreads, S_(synth_rows), &x);
}

#undef S_
#undef SC_CAT
#undef SC_CAT2
#undef SC
