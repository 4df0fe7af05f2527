/* bellperson_prove.c - see bellperson_prove.h. */
#include "bellperson_prove.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_assemble.h"
#include "bellperson_ntt.h"
#include "bellperson_shape.h"
#include "cpu_prove.h"
#include "msm.h"

int bp_prove_abc(const struct bp_key *k, const struct bp_pce *p, const uint8_t *w,
                 bls12381_fr_t *a, bls12381_fr_t *b, bls12381_fr_t *c,
                 bls12381_g1_affine_t *A, bls12381_g2_affine_t *B, bls12381_g1_affine_t *C,
                 unsigned nthreads, struct sp_err *e)
{
    unsigned log_n;
    size_t n = bp_pce_domain_size(p, &log_n);
    size_t nw = (size_t)p->num_inputs + p->num_aux;
    uint8_t *sc = malloc((n > nw ? n : nw) * 32);
    struct bls12381_ntt_domain d = { 0 };
    int rc = 0;
    if (!sc || bp_domain_init(&d, log_n, nthreads) < 0) {
        rc = sp_fail(e, -ENOMEM, "out of memory for a 2^%u bellperson proof", log_n);
        goto out;
    }
    /* c = a∘b (the slot holds a and b only); the row permutation of the
     * quotient moves a, b and c alike, so it is formed before it */
    bls12381_form_c(c, a, b, n, nthreads);
    bp_quotient(a, b, c, &d, nthreads);
    /* a, b in the slot's form (shm/payload.h: standard form) and c their
     * Montgomery product: the quotient is h·R^-1, and its product with R^2
     * is h in standard form */
    for (size_t i = 0; i + 1 < n; i++) {
        bls12381_fr_t t;
        bls12381_fr_mul(&t, &a[i], &bls12381_fr_r2);
        bls12381_fr_to_bytes(sc + 32 * i, &t);
    }

    bls12381_g1_jac_t h, l, ma, mb1;
    bls12381_g2_jac_t mb2;
    size_t na, nb;
    if ((rc = bls12381_g1_msm(&h, k->h, sc, n - 1, nthreads)) < 0 ||
        (rc = bls12381_g1_msm(&l, k->l, w + 32 * (size_t)p->num_inputs, p->num_aux, nthreads)) < 0)
        goto msm_fail;
    na = bp_gather(sc, w, p->num_inputs, p->num_aux, NULL, &p->a_aux);
    if ((rc = bls12381_g1_msm(&ma, k->a, sc, na, nthreads)) < 0)
        goto msm_fail;
    nb = bp_gather(sc, w, p->num_inputs, p->num_aux, &p->b_input, &p->b_aux);
    if ((rc = bls12381_g1_msm(&mb1, k->b_g1, sc, nb, nthreads)) < 0 ||
        (rc = bls12381_g2_msm(&mb2, k->b_g2, sc, nb, nthreads)) < 0)
        goto msm_fail;

    if ((rc = bp_assemble(k, &h, &l, &ma, &mb1, &mb2, A, B, C, e)) < 0)
        goto out;
    rc = 0;
    goto out;
msm_fail:
    rc = sp_fail(e, rc, "MSM: %s", strerror(-rc));
out:
    bls12381_ntt_domain_free(&d);
    free(sc);
    return rc;
}
