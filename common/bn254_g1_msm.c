/* bn254_g1_msm.c — MSM over bn254 g1 (see msm.h, msm_tmpl.h), with the GLV
 * endomorphism (glv.h). */
#include "fp254_ifma.h"
#include "glv.h"
#include "msm.h"

_Static_assert(sizeof(bn254_g1_affine_t) == 2 * sizeof(bn254_fp_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bn254_g1
#define MSM_FIELD bn254_fp
#define MSM_SCALAR_BITS 254
/* GLV: k = k1 + k2·λ, φ(x, y) = (β·x, y) */
#define MSM_ENDO_PARTS 2
#define MSM_ENDO_BITS BN254_GLV_BITS
#define MSM_ENDO_SPLIT(k, m, neg) glv_split(&bn254_glv, (k), (m)[0], (m)[1], (neg))
#define MSM_ENDO_MAP(out, in) \
    ((out)->y = (in)->y, bn254_fp_mul(&(out)->x, &(in)->x, &bn254_glv_beta))
#define MSM_SPLIT_API /* X_msm_split_* (msm.h) */
/* batch-affine bucket additions in eight AVX-512 IFMA lanes where the CPU
 * has them (fp254_ifma.h; $SLOTPROVE_NO_IFMA=1 keeps the scalar path) */
#define MSM_ADD_BATCH_LANES_ON() ifma_enabled()
#define MSM_ADD_BATCH_LANES(dst, dst_set, src, n, den, pre) \
    bn254_g1_add_batch_ifma((dst), (dst_set), (src), (n), (den), (pre))
#include "msm_tmpl.h"
