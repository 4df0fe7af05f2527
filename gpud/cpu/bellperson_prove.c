/* bellperson_prove.c - see bellperson_prove.h. */
#include "bellperson_prove.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_ntt.h"
#include "bellperson_shape.h"
#include "cpu_prove.h"
#include "msm.h"
#include "random.h"

typedef bls12381_g1_affine_t g1_t;
typedef bls12381_g2_affine_t g2_t;

void bp_key_free(struct bp_key *k)
{
    free(k->ic), free(k->h), free(k->l), free(k->a), free(k->b_g1), free(k->b_g2);
    k->ic = k->h = k->l = k->a = k->b_g1 = NULL;
    k->b_g2 = NULL;
    bp_params_close(&k->params);
}

int bp_key_load(struct bp_key *k, int fd, const char *path, int subgroup, unsigned nthreads,
                struct sp_err *e)
{
    memset(k, 0, sizeof *k);
    int rc = bp_params_open(&k->params, fd, path, 0, e);
    if (rc < 0)
        return rc;
    const struct bp_params *p = &k->params;
    k->ic = malloc(((size_t)p->count[BP_IC] + 1) * sizeof(g1_t));
    k->h = malloc(((size_t)p->count[BP_H] + 1) * sizeof(g1_t));
    k->l = malloc(((size_t)p->count[BP_L] + 1) * sizeof(g1_t));
    k->a = malloc(((size_t)p->count[BP_A] + 1) * sizeof(g1_t));
    k->b_g1 = malloc(((size_t)p->count[BP_B_G1] + 1) * sizeof(g1_t));
    k->b_g2 = malloc(((size_t)p->count[BP_B_G2] + 1) * sizeof(g2_t));
    if (!k->ic || !k->h || !k->l || !k->a || !k->b_g1 || !k->b_g2) {
        bp_key_free(k);
        return sp_fail(e, -ENOMEM, "%s: out of memory for the points", path);
    }
    struct {
        enum bp_section s;
        void *out;
    } parts[] = {
        { BP_VK_ALPHA_G1, &k->alpha1 }, { BP_VK_BETA_G1, &k->beta1 },
        { BP_VK_BETA_G2, &k->beta2 },   { BP_VK_GAMMA_G2, &k->gamma2 },
        { BP_VK_DELTA_G1, &k->delta1 }, { BP_VK_DELTA_G2, &k->delta2 },
        { BP_IC, k->ic },               { BP_H, k->h },
        { BP_L, k->l },                 { BP_A, k->a },
        { BP_B_G1, k->b_g1 },           { BP_B_G2, k->b_g2 },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        rc = bp_params_decode(p, parts[i].s, 0, p->count[parts[i].s], parts[i].out, subgroup,
                              nthreads, e);
        if (rc < 0) {
            bp_key_free(k);
            return rc;
        }
    }
    /* the points are decoded: drop the mapping (counts and path stay), so
     * a 47 GiB file does not hold its page cache as well */
    bp_params_close(&k->params);
    return 0;
}

int bp_key_match_pce(const struct bp_key *k, const struct bp_pce *p, struct sp_err *e)
{
    return bp_params_match_pce(&k->params, p, e);
}

/* Scalars of the wires whose bit is set, inputs (bitmap in, or all when
 * in == NULL) then aux (bitmap aux), 32 bytes each. Returns the count. */
size_t bp_gather(uint8_t *out, const uint8_t *w, uint32_t n_in, uint32_t n_aux,
                 const struct bp_density *in, const struct bp_density *aux)
{
    size_t k = 0;
    for (uint32_t i = 0; i < n_in; i++)
        if (!in || bp_density_bit(in, i))
            memcpy(out + 32 * k++, w + 32 * (size_t)i, 32);
    for (uint32_t j = 0; j < n_aux; j++)
        if (bp_density_bit(aux, j))
            memcpy(out + 32 * k++, w + 32 * ((size_t)n_in + j), 32);
    return k;
}

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

int bp_assemble(const struct bp_key *k, const bls12381_g1_jac_t *h, const bls12381_g1_jac_t *l,
                const bls12381_g1_jac_t *ma, const bls12381_g1_jac_t *mb1,
                const bls12381_g2_jac_t *mb2, bls12381_g1_affine_t *A, bls12381_g2_affine_t *B,
                bls12381_g1_affine_t *C, struct sp_err *e)
{
    int rc;
    /* r, s uniform in Fr */
    uint64_t r[4], s[4], rs[4];
    if ((rc = random_below(r, bls12381_fr_modulus.l)) < 0 ||
        (rc = random_below(s, bls12381_fr_modulus.l)) < 0) {
        rc = sp_fail(e, rc, "getrandom: %s", strerror(-rc));
        return rc;
    }
    {
        bls12381_fr_t fr, fs, frs;
        memcpy(fr.l, r, 32), memcpy(fs.l, s, 32);
        bls12381_fr_to_mont(&fr, &fr);
        bls12381_fr_to_mont(&fs, &fs);
        bls12381_fr_mul(&frs, &fr, &fs);
        bls12381_fr_from_mont(&frs, &frs);
        memcpy(rs, frs.l, 32);
    }
    bls12381_g1_jac_t ja, jb1, jc, t1;
    bls12381_g2_jac_t jb, t2;
    /* A = α1 + Σa + r·δ1 */
    bls12381_g1_mul_scalar_affine(&t1, &k->delta1, r, 4);
    bls12381_g1_add(&ja, ma, &t1);
    bls12381_g1_add_affine(&ja, &ja, &k->alpha1);
    /* B = β2 + Σb_g2 + s·δ2 */
    bls12381_g2_mul_scalar_affine(&t2, &k->delta2, s, 4);
    bls12381_g2_add(&jb, mb2, &t2);
    bls12381_g2_add_affine(&jb, &jb, &k->beta2);
    /* B1 = β1 + Σb_g1 + s·δ1 */
    bls12381_g1_mul_scalar_affine(&t1, &k->delta1, s, 4);
    bls12381_g1_add(&jb1, mb1, &t1);
    bls12381_g1_add_affine(&jb1, &jb1, &k->beta1);
    /* C = s·A + r·B1 − r·s·δ1 + Σh + Σl */
    bls12381_g1_mul_scalar(&jc, &ja, s, 4);
    bls12381_g1_mul_scalar(&t1, &jb1, r, 4);
    bls12381_g1_add(&jc, &jc, &t1);
    bls12381_g1_mul_scalar_affine(&t1, &k->delta1, rs, 4);
    bls12381_g1_sub(&jc, &jc, &t1);
    bls12381_g1_add(&jc, &jc, h);
    bls12381_g1_add(&jc, &jc, l);
    bls12381_g1_to_affine(A, &ja);
    bls12381_g2_to_affine(B, &jb);
    bls12381_g1_to_affine(C, &jc);
    explicit_bzero(r, sizeof r);
    explicit_bzero(s, sizeof s);
    explicit_bzero(rs, sizeof rs);
    return 0;
}
