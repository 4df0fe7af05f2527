/* bellperson_assemble.c - see bellperson_assemble.h. */
#include "bellperson_assemble.h"

#include <string.h>

#include "random.h"

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
