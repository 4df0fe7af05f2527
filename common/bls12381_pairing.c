/* bls12381_pairing.c - the BLS12-381 pairing (see bls12381_pairing.h, pairing_tmpl.h). */
#include "bls12381_pairing.h"

#include <string.h>

#define PAIRING bls12381
#define PAIRING_TWIST_D 0
#define PAIRING_LOOP_LO BLS12381_ATE_LOOP_LO
#define PAIRING_LOOP_HI BLS12381_ATE_LOOP_HI
#define PAIRING_LOOP_NEG 1
#define PAIRING_BN 0
#define PAIRING_HARD BLS12381_HARD_EXP
#define PAIRING_HARD_LIMBS BLS12381_HARD_LIMBS
#include "pairing_tmpl.h"
