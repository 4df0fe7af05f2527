/* bn254_g2_msm.c — MSM over bn254 g2 (see msm.h, msm_tmpl.h). */
#include "msm.h"

_Static_assert(sizeof(bn254_g2_affine_t) == 2 * sizeof(bn254_fp2_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bn254_g2
#define MSM_FIELD bn254_fp2
#define MSM_SCALAR_BITS 254
#include "msm_tmpl.h"
