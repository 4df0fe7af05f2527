/* pipeline.h — where a partition's time goes (pipeline.c). */
#ifndef SLOTPROVE_PIPELINE_H
#define SLOTPROVE_PIPELINE_H

#include "core_state.h"
#include "ctl.h"

/* Pipeline figures (pipeline.c): a partition's first and latest SYNTH, its
 * SYNTH_DONE report (slot wait, synthesis wall and CPU time), its PROVED
 * (gpud's busy time; with o.trace_times a TIMES line on stderr). */
void core_note_synth_start(struct core *c, struct job_part *jp, uint64_t now);
void core_note_synthesized(struct core *c, const struct job *j, struct job_part *jp,
                           const struct ctl_msg *m);
void core_note_proved(struct core *c, const struct job *j, uint32_t part, uint32_t gpud,
                      const struct stage_times *t);
/* The counters as a jansson object (json_t *, new reference), with now_ns,
 * the time of the sample: status's "pipeline". */
void *core_pipeline_json(const struct core *c);

#endif
