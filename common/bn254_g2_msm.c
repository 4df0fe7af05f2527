/* bn254_g2_msm.c — MSM over bn254 g2 (see msm.h, msm_tmpl.h). */
#include "fp254_ifma.h"
#include "msm.h"

_Static_assert(sizeof(bn254_g2_affine_t) == 2 * sizeof(bn254_fp2_t),
               "affine points are read in the zkey's x||y layout");

#define MSM_GROUP bn254_g2
#define MSM_FIELD bn254_fp2
#define MSM_SCALAR_BITS 254
/* batch-affine bucket additions in eight AVX-512 IFMA lanes where the CPU
 * has them (fp254_ifma.h; $SLOTPROVE_NO_IFMA=1 keeps the scalar path) */
#define MSM_ADD_BATCH_LANES_ON() ifma_enabled()
#define MSM_ADD_BATCH_LANES(dst, dst_set, src, n, den, pre) \
    bn254_g2_add_batch_ifma((dst), (dst_set), (src), (n), (den), (pre))
#include "msm_tmpl.h"
