/* bn254_fixed_base.c — fixed-base multiplication on bn254 G1 and G2 (see
 * fixed_base.h, fixed_base_tmpl.h). */
#include "fixed_base.h"

#define FB_GROUP bn254_g1
#define FB_FIELD bn254_fp
#include "fixed_base_tmpl.h"

#define FB_GROUP bn254_g2
#define FB_FIELD bn254_fp2
#include "fixed_base_tmpl.h"
