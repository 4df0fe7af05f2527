/* bls12381_fixed_base.c — fixed-base multiplication on bls12381 G1 and G2 (see
 * fixed_base.h, fixed_base_tmpl.h). */
#include "fixed_base.h"

#define FB_GROUP bls12381_g1
#define FB_FIELD bls12381_fp
#include "fixed_base_tmpl.h"

#define FB_GROUP bls12381_g2
#define FB_FIELD bls12381_fp2
#include "fixed_base_tmpl.h"
