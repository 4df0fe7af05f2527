/* bls12381_synth_class.c — coefficient classes over bls12381's Fr (synth_class.h). */
#include "bls12381.h"
#include "synth_class.h"

#define SC bls12381
#include "synth_class_tmpl.h"
