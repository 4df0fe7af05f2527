/* bls12381_pairing.c - the BLS12-381 pairing (see bls12381_pairing.h, pairing_tmpl.h). */
#include "bls12381_pairing.h"

#include <string.h>

#define PAIRING bls12381
#define PAIRING_TWIST_D 0
#define PAIRING_LOOP_LO BLS12381_ATE_LOOP_LO
#define PAIRING_LOOP_HI BLS12381_ATE_LOOP_HI
#define PAIRING_LOOP_NEG 1
#define PAIRING_BN 0
#define PAIRING_PARAM_ABS BLS12381_PARAM_ABS
#define PAIRING_PARAM_NEG BLS12381_PARAM_NEG
#define PAIRING_HARD_DEG BLS12381_HARD_DEG
#define PAIRING_HARD_COEF BLS12381_HARD_COEF
#define PAIRING_G1_COFACTOR_ONE 0
#include "pairing_tmpl.h"
