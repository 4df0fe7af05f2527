/* bls12381_g1_msm.c — MSM over bls12381 g1 (see msm.h, msm_tmpl.h), with the GLV
 * endomorphism (glv.h). */
#include "glv.h"
#include "msm.h"

_Static_assert(sizeof(bls12381_g1_affine_t) == 2 * sizeof(bls12381_fp_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bls12381_g1
#define MSM_FIELD bls12381_fp
#define MSM_SCALAR_BITS 255
#define MSM_GLV bls12381_glv
#define MSM_GLV_BETA bls12381_glv_beta
#define MSM_GLV_BITS BLS12381_GLV_BITS
#include "msm_tmpl.h"
