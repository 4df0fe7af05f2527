/* bn254_synth_class.c — coefficient classes over bn254's Fr (synth_class.h). */
#include "bn254.h"
#include "synth_class.h"

#define SC bn254
#include "synth_class_tmpl.h"
