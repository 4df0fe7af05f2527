/* bls12381_groth16.c - Groth16 verification on bls12381 (bls12381_groth16.h, groth16_tmpl.h). */
#include "bls12381_groth16.h"

#include "bls12381_pairing.h"

#define G16 bls12381
#define G16_FPL 6
#include "groth16_tmpl.h"
