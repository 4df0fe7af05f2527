/* bls12381_prove.c — CPU Groth16 prover for bls12381 (see cpu_prove.h, prove_tmpl.h). */
#include "cpu_prove.h"
#include "parallel.h"

#define PC bls12381
#include "prove_tmpl.h"
