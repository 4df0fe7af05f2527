/* bn254_g1_msm.c — MSM over bn254 g1 (see msm.h, msm_tmpl.h), with the GLV
 * endomorphism (glv.h). */
#include "glv.h"
#include "msm.h"

_Static_assert(sizeof(bn254_g1_affine_t) == 2 * sizeof(bn254_fp_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bn254_g1
#define MSM_FIELD bn254_fp
#define MSM_SCALAR_BITS 254
#define MSM_GLV bn254_glv
#define MSM_GLV_BETA bn254_glv_beta
#define MSM_GLV_BITS BN254_GLV_BITS
#include "msm_tmpl.h"
