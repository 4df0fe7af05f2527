/* bls12381_synth.c — synthesis over bls12381's Fr (see synth.h, synth_tmpl.h). */
#include "synth.h"

#define SC bls12381
#include "synth_tmpl.h"
