/* bn254_prove.c — CPU Groth16 prover for bn254 (see cpu_prove.h, prove_tmpl.h). */
#include "cpu_prove.h"
#include "parallel.h"

#define PC bn254
#include "prove_tmpl.h"
