/*
 * cpu_bellperson.h — the CPU backend's bellperson row (backend.h's
 * backend_format, for CTL_KEY_BELLPERSON keys; the zkey row is
 * cpu_backend.c's):
 *   prove_start    copies a, b and the witness off the slot, with room for
 *                  c = a∘b after b (the slot's form, shm/payload.h);
 *   prove_finish   proves them with bellperson's conventions
 *                  (bellperson_prove.h: bp_prove_abc on the key's decoded
 *                  points, gpud/bellperson_key.h, and its PCE) and frees
 *                  the job. -ENOMEM, or bp_prove_abc's error.
 * The CUDA backend proves here what its device cannot (its fallback).
 */
#ifndef SLOTPROVE_CPU_BELLPERSON_H
#define SLOTPROVE_CPU_BELLPERSON_H

#include "backend.h"

extern const struct backend_format cpu_bellperson_format;

#endif
