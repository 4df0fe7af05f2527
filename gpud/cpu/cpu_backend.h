/* cpu_backend.h — the CPU prover backend's ops (backend.h): proofs on
 * be->nthreads threads with gpud/cpu/cpu_prove.h; its failures are the
 * input's or the host's (out of memory), never a device's. */
#ifndef SLOTPROVE_CPU_BACKEND_H
#define SLOTPROVE_CPU_BACKEND_H

#include "backend.h"

extern const struct backend_ops cpu_backend_ops;

#endif
