/* assemble.c — the Groth16 proof from the MSM results, both curves (see
 * assemble.h; assemble_tmpl.h holds the formulas once). */
#include "assemble.h"

#define PC bn254
#include "assemble_tmpl.h"

#define PC bls12381
#include "assemble_tmpl.h"
