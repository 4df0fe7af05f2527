/* bn254_g1_msm.c — MSM over bn254 g1 (see msm.h, msm_tmpl.h). */
#include "msm.h"

_Static_assert(sizeof(bn254_g1_affine_t) == 2 * sizeof(bn254_fp_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bn254_g1
#define MSM_FIELD bn254_fp
#define MSM_SCALAR_BITS 254
#include "msm_tmpl.h"
