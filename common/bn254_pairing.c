/* bn254_pairing.c - the BN254 pairing (see bn254_pairing.h, pairing_tmpl.h). */
#include "bn254_pairing.h"

#include <string.h>

#define PAIRING bn254
#define PAIRING_TWIST_D 1
#define PAIRING_LOOP_LO BN254_ATE_LOOP_LO
#define PAIRING_LOOP_HI BN254_ATE_LOOP_HI
#define PAIRING_LOOP_NEG 0
#define PAIRING_BN 1
#define PAIRING_PARAM_ABS BN254_PARAM_ABS
#define PAIRING_PARAM_NEG BN254_PARAM_NEG
#define PAIRING_HARD_DEG BN254_HARD_DEG
#define PAIRING_HARD_COEF BN254_HARD_COEF
#define PAIRING_G1_COFACTOR_ONE 1
#define PAIRING_FAST_SUBGROUP 0
#include "pairing_tmpl.h"
