/* bls12381_g2_msm.c — MSM over bls12381 g2 (see msm.h, msm_tmpl.h). */
#include "msm.h"

_Static_assert(sizeof(bls12381_g2_affine_t) == 2 * sizeof(bls12381_fp2_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bls12381_g2
#define MSM_FIELD bls12381_fp2
#define MSM_SCALAR_BITS 255
#include "msm_tmpl.h"
