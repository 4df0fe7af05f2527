/*
 * keygen_progress.h — keygen's progress display and work count (keygen_progress.c).
 */
#ifndef SLOTPROVE_KEYGEN_PROGRESS_H
#define SLOTPROVE_KEYGEN_PROGRESS_H

#include <stdint.h>

#include "keygen_types.h"

/* keygen_phase starts a phase (its name, its clock; no bar yet);
 * keygen_phase_units gives it a bar of `total` units, which keygen_advance
 * fills (the circuit: one unit a constraint; the points: keygen_work's). */
void keygen_phase(struct keygen_progress *p, const char *phase);
void keygen_phase_units(struct keygen_progress *p, uint64_t total);
void keygen_advance(struct keygen_progress *p, uint64_t units);
void keygen_phase_end(struct keygen_progress *p);

/* Work units keygen_advance will see in total for this shape and curve. */
uint64_t keygen_work(const struct keygen_shape *s);

#endif
