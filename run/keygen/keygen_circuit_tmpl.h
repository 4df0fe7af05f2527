/*
 * keygen_circuit_tmpl.h — the synthetic circuit and its witness over one
 * curve's Fr (shape in keygen_circuit.h). A "C template": define
 *   KG_FR  field prefix (bn254_fr, bls12381_fr)
 *   KG     function prefix (keygen_bn254, keygen_bls12381)
 * then include. Defines KG_circuit, declared in keygen_curve.h.
 *
 * Wires: 0 is 1; 1..K are the public inputs (uniform in Fr); wire 1+K+i is
 * the output of constraint i, computed from earlier wires as its kind says,
 * so every constraint holds by construction (tests/test_keygen.c checks
 * (A·w)(B·w) = C·w row by row). Field values are drawn as uniform limbs
 * below r and used as Montgomery-form elements (still uniform).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KC_CAT2(a, b) a##_##b
#define KC_CAT(a, b) KC_CAT2(a, b)
#define KF(name) KC_CAT(KG_FR, name)
#define KGF(name) KC_CAT(KG, name)
#define KT KC_CAT(KG_FR, t)
#define KTERM struct KC_CAT(KG, term)

static void KGF(rand_fr)(KT *ret, struct keygen_rng *g)
{
    keygen_rng_below(g, ret->l, KF(modulus).l);
}

/* A distinct element of pool[0..n) not in taken[0..ntaken) (n > ntaken). */
static uint32_t KGF(pick)(struct keygen_rng *g, const uint32_t *pool, uint64_t n,
                          const uint32_t *taken, unsigned ntaken)
{
    for (;;) {
        uint32_t w = pool[keygen_rng_next(g) % n];
        unsigned j = 0;
        while (j < ntaken && taken[j] != w)
            j++;
        if (j == ntaken)
            return w;
    }
}

int KGF(circuit)(const struct keygen_shape *s, struct keygen_rng *g, KT *w,
                 KGF(emit_fn) emit, void *ctx)
{
    uint32_t *bits = malloc(((size_t)s->n_constraints + 1) * sizeof(uint32_t));
    uint32_t *full = malloc(((size_t)s->n_constraints + s->n_public + 1) * sizeof(uint32_t));
    uint64_t nbits = 0, nfull = 0;
    int rc = 0;
    if (!bits || !full) {
        free(bits);
        free(full);
        return -ENOMEM;
    }
    KT one, minus_one, two;
    KF(set_one)(&one);
    KF(neg)(&minus_one, &one);
    KF(add)(&two, &one, &one);

    KF(set_one)(&w[0]);
    for (uint32_t k = 1; k <= s->n_public; k++) {
        KGF(rand_fr)(&w[k], g);
        full[nfull++] = k;
    }
    KTERM t[3][KEYGEN_MAX_TERMS];
    unsigned nt[3];
    /* Constraints 0 .. n_new-1 each make a wire; the rest (when --vars is
     * below 1 + K + N) check earlier wires: the same kinds and term counts,
     * with the would-be new wire's value as a constant on wire 0 in C (a BIT
     * check re-checks an earlier bit). */
    const uint32_t n_new = s->n_vars - 1 - s->n_public, CHECK = UINT32_MAX;
    KT checked;
    for (uint32_t i = 0; i < s->n_constraints && rc == 0; i++) {
        const int check = i >= n_new;
        uint32_t o = check ? CHECK : 1 + s->n_public + i, x[KEYGEN_MAX_TERMS];
        KT *wo = check ? &checked : &w[o];
        enum keygen_kind kind = keygen_kind(i);
        KT acc, c[4];
        for (unsigned m = 0; m < 3; m++)
            nt[m] = keygen_terms(kind, m);
        switch (kind) {
        case KG_BIT:
            if (check) {
                o = KGF(pick)(g, bits, nbits, NULL, 0);
            } else {
                if (keygen_rng_next(g) & 1)
                    KF(set_one)(&w[o]);
                else
                    KF(set_zero)(&w[o]);
                bits[nbits++] = o;
            }
            t[0][0] = (KTERM){ o, one };
            t[1][0] = (KTERM){ o, one };
            t[1][1] = (KTERM){ 0, minus_one };
            break;
        case KG_AND:
        case KG_XOR:
            x[0] = KGF(pick)(g, bits, nbits, NULL, 0);
            x[1] = KGF(pick)(g, bits, nbits, x, 1);
            KF(mul)(&acc, &w[x[0]], &w[x[1]]);
            if (kind == KG_AND) {
                *wo = acc;
                t[0][0] = (KTERM){ x[0], one };
                t[2][0] = (KTERM){ o, one };
            } else { /* o = x + y − 2xy */
                KF(add)(wo, &w[x[0]], &w[x[1]]);
                KF(sub)(wo, wo, &acc);
                KF(sub)(wo, wo, &acc);
                t[0][0] = (KTERM){ x[0], two };
                t[2][0] = (KTERM){ x[0], one };
                t[2][1] = (KTERM){ x[1], one };
                t[2][2] = (KTERM){ o, minus_one };
            }
            t[1][0] = (KTERM){ x[1], one };
            if (!check)
                bits[nbits++] = o;
            break;
        case KG_PACK: {
            KT pow2 = one;
            KF(set_zero)(wo);
            for (unsigned k = 0; k < 8; k++) {
                x[k] = KGF(pick)(g, bits, nbits, x, k);
                t[0][k] = (KTERM){ x[k], pow2 };
                KF(mul)(&acc, &pow2, &w[x[k]]);
                KF(add)(wo, wo, &acc);
                KF(add)(&pow2, &pow2, &pow2);
            }
            t[1][0] = (KTERM){ 0, one };
            t[2][0] = (KTERM){ o, one };
            if (!check)
                full[nfull++] = o;
            break;
        }
        case KG_MUL: { /* operands from the full-size pool, or bits while it is empty */
            const uint32_t *pool = nfull ? full : bits;
            uint64_t n = nfull ? nfull : nbits;
            x[0] = KGF(pick)(g, pool, n, NULL, 0);
            x[1] = KGF(pick)(g, pool, n, NULL, 0);
            for (unsigned k = 0; k < 4; k++)
                KGF(rand_fr)(&c[k], g);
            KT l, r;
            KF(mul)(&l, &c[0], &w[x[0]]);
            KF(add)(&l, &l, &c[1]);
            KF(mul)(&r, &c[2], &w[x[1]]);
            KF(add)(&r, &r, &c[3]);
            KF(mul)(wo, &l, &r);
            t[0][0] = (KTERM){ x[0], c[0] };
            t[0][1] = (KTERM){ 0, c[1] };
            t[1][0] = (KTERM){ x[1], c[2] };
            t[1][1] = (KTERM){ 0, c[3] };
            t[2][0] = (KTERM){ o, one };
            if (!check)
                full[nfull++] = o;
            break;
        }
        case KG_LIN: { /* three distinct earlier wires, full-size ones when there are three */
            KF(set_zero)(wo);
            for (unsigned k = 0; k < 3; k++) {
                if (nfull >= 3) {
                    x[k] = KGF(pick)(g, full, nfull, x, k);
                } else { /* any earlier wire but 0: o − 1 >= 3 here */
                    uint32_t v;
                    do {
                        v = 1 + (uint32_t)(keygen_rng_next(g) % (o - 1));
                    } while ((k > 0 && v == x[0]) || (k > 1 && v == x[1]));
                    x[k] = v;
                }
                KGF(rand_fr)(&c[k], g);
                t[0][k] = (KTERM){ x[k], c[k] };
                KF(mul)(&acc, &c[k], &w[x[k]]);
                KF(add)(wo, wo, &acc);
            }
            t[1][0] = (KTERM){ 0, one };
            t[2][0] = (KTERM){ o, one };
            if (!check)
                full[nfull++] = o;
            break;
        }
        }
        if (check && kind != KG_BIT) /* the new wire's term becomes coef·value on wire 0 */
            for (unsigned m = 0; m < 3; m++)
                for (unsigned q = 0; q < nt[m]; q++)
                    if (t[m][q].signal == CHECK) {
                        KT coef = t[m][q].value;
                        KF(mul)(&t[m][q].value, &coef, &checked);
                        t[m][q].signal = 0;
                    }
        const KTERM *rows[3] = { t[0], t[1], t[2] };
        rc = emit(ctx, i, rows, nt);
    }
    free(bits);
    free(full);
    return rc;
}

#undef KC_CAT2
#undef KC_CAT
#undef KF
#undef KGF
#undef KT
#undef KTERM
