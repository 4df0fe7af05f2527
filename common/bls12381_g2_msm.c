/* bls12381_g2_msm.c — MSM over bls12381 g2 (see msm.h, msm_tmpl.h), with the ψ
 * endomorphism (glv.h). */
#include "fp381_ifma.h"
#include "glv.h"
#include "msm.h"

_Static_assert(sizeof(bls12381_g2_affine_t) == 2 * sizeof(bls12381_fp2_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bls12381_g2
#define MSM_FIELD bls12381_fp2
#define MSM_SCALAR_BITS 255
/* ψ: k = Σ_j (−1)^j d_j z^j, ψ(x, y) = (conj(x)·cx, conj(y)·cy) = z·(x, y) */
static const bls12381_fp2_t psi_cx = BLS12381_PSI_CX, psi_cy = BLS12381_PSI_CY;
static inline void psi_map(bls12381_g2_affine_t *out, const bls12381_g2_affine_t *in)
{
    bls12381_fp2_conj(&out->x, &in->x);
    bls12381_fp2_mul(&out->x, &out->x, &psi_cx);
    bls12381_fp2_conj(&out->y, &in->y);
    bls12381_fp2_mul(&out->y, &out->y, &psi_cy);
}
#define MSM_ENDO_PARTS 4
#define MSM_ENDO_BITS 64
#define MSM_ENDO_SPLIT(k, m, neg) bls12381_psi_split((k), (m), (neg))
#define MSM_ENDO_MAP(out, in) psi_map((out), (in))
/* batch-affine bucket additions in eight AVX-512 IFMA lanes where the CPU
 * has them (fp381_ifma.h; $SLOTPROVE_NO_IFMA=1 keeps the scalar path) */
#define MSM_ADD_BATCH_LANES_ON() fp381_ifma_enabled()
#define MSM_ADD_BATCH_LANES(dst, dst_set, src, n, den, pre) \
    bls12381_g2_add_batch_ifma((dst), (dst_set), (src), (n), (den), (pre))
#include "msm_tmpl.h"
