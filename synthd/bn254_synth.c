/* bn254_synth.c — synthesis over bn254's Fr (see synth.h, synth_tmpl.h). */
#include "synth.h"

#define SC bn254
#include "synth_tmpl.h"
