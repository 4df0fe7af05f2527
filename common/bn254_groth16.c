/* bn254_groth16.c - Groth16 verification on bn254 (bn254_groth16.h, groth16_tmpl.h). */
#include "bn254_groth16.h"

#include "bn254_pairing.h"

#define G16 bn254
#define G16_FPL 4
#include "groth16_tmpl.h"
