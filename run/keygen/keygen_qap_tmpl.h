/*
 * keygen_qap_tmpl.h — the QAP's bases evaluated at τ (see keygen_curve.h for
 * the formulas and why the H bases are right). A "C template": define
 *   KG_FR  field prefix (bn254_fr, bls12381_fr)
 *   KG     function prefix (keygen_bn254, keygen_bls12381)
 *   KG_NTT NTT prefix (bn254_ntt, bls12381_ntt: snarkjs's roots)
 * then include.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KQ_CAT2(a, b) a##_##b
#define KQ_CAT(a, b) KQ_CAT2(a, b)
#define KF(name) KQ_CAT(KG_FR, name)
#define KGF(name) KQ_CAT(KG, name)
#define KT KQ_CAT(KG_FR, t)
#define KQAP struct KQ_CAT(KG, qap)

static void KGF(pow_u64)(KT *ret, const KT *base, uint64_t e)
{
    KF(pow)(ret, base, &e, 1);
}

int KGF(qap_init)(KQAP *q, const KT *tau, const KT *delta, unsigned log_n, const KT *shift)
{
    KT one, tn, gn, n_fr, t1, t2;
    memset(q, 0, sizeof(*q));
    q->log_n = log_n;
    q->n = (uint64_t)1 << log_n;
    q->tau = *tau;
    q->shift = *shift;
    KQ_CAT(KG_NTT, root_of_unity)(&q->omega, log_n);
    KF(set_one)(&one);
    KGF(pow_u64)(&tn, tau, q->n);
    KGF(pow_u64)(&gn, shift, q->n);
    KF(from_u64)(&n_fr, q->n);
    KF(sub)(&t1, &tn, &one);             /* Z(τ) = τ^n − 1 */
    KF(sub)(&t2, &tn, &gn);              /* τ^n − g^n */
    if (KF(is_zero)(&t1) || KF(is_zero)(&t2) || KF(is_zero)(delta))
        return -EDOM;
    KF(inv)(&q->lagrange_factor, &n_fr);
    KF(mul)(&q->lagrange_factor, &q->lagrange_factor, &t1);
    KT den;
    KF(sub)(&den, &gn, &one);            /* (g^n − 1) n g^n δ */
    KF(mul)(&den, &den, &n_fr);
    KF(mul)(&den, &den, &gn);
    KF(mul)(&den, &den, delta);
    KF(inv)(&den, &den);
    KF(mul)(&q->h_factor, &t1, &t2);
    KF(mul)(&q->h_factor, &q->h_factor, &den);
    return 0;
}

/* out[k] = factor · p_k/(τ − p_k), p_k = base·ω^(first+k); one inversion. */
static int KGF(bases)(const KQAP *q, KT *out, uint64_t first, size_t count,
                      const KT *base, const KT *factor)
{
    if (count == 0)
        return 0;
    KT *p = malloc(count * sizeof(KT));
    if (!p)
        return -ENOMEM;
    KT x, acc, inv;
    KGF(pow_u64)(&x, &q->omega, first);
    KF(mul)(&x, &x, base);
    KF(set_one)(&acc);
    for (size_t k = 0; k < count; k++) { /* out[k] = Π_{j<k} (τ − p_j) */
        p[k] = x;
        out[k] = acc;
        KT d;
        KF(sub)(&d, &q->tau, &x);
        KF(mul)(&acc, &acc, &d);
        KF(mul)(&x, &x, &q->omega);
    }
    KF(inv)(&inv, &acc);                 /* 1/Π (τ − p_j): τ is off the points */
    KF(mul)(&inv, &inv, factor);
    for (size_t k = count; k-- > 0;) {
        KT d, r;
        KF(sub)(&d, &q->tau, &p[k]);
        KF(mul)(&r, &inv, &out[k]);      /* factor/(τ − p_k) */
        KF(mul)(&inv, &inv, &d);
        KF(mul)(&out[k], &r, &p[k]);
    }
    free(p);
    return 0;
}

int KGF(lagrange)(const KQAP *q, KT *out, uint64_t first, size_t count)
{
    KT one;
    KF(set_one)(&one);
    return KGF(bases)(q, out, first, count, &one, &q->lagrange_factor);
}

int KGF(h_bases)(const KQAP *q, KT *out, uint64_t first, size_t count)
{
    return KGF(bases)(q, out, first, count, &q->shift, &q->h_factor);
}

#undef KQ_CAT2
#undef KQ_CAT
#undef KF
#undef KGF
#undef KT
#undef KQAP
