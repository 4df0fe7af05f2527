/* synth_nt.c — the domain size from which synthesis stores a and b
 * non-temporally (synth.h, synth_tmpl.h). */
#include "synth.h"

uint32_t synth_nt_min_rows = SYNTH_NT_MIN_ROWS;
