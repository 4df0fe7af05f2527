/*
 * prove_work.h — one partition of any key format, on a worker thread: the
 * data off the slot (prove_start of the backend's row for the key's
 * format, backend.h), the slot's early release, the proof (prove_finish),
 * its check against the format's vk (key_format.h, unless switched off),
 * the result to the supervisor (PROVED with the proof in binary, or
 * PROVE_ERR with the reason: a device backend's failures as -SP_EDEVICE).
 *
 *   prove_work(w)          w: a slot taken (PROVING) with its checked
 *                          header (its key loaded); the caller holds
 *                          key_table_rdlock.
 *   prove_work_verify(on)  0: proofs leave unchecked (the supervisor's
 *                          --no-verify); 1 (the default): every proof is
 *                          checked, and one that fails is proved once more
 *                          (ops->reprove) where the backend can, then never
 *                          sent.
 */
#ifndef SLOTPROVE_GPUD_PROVE_WORK_H
#define SLOTPROVE_GPUD_PROVE_WORK_H

#include <stdint.h>

#include "proof.h"
#include "slot.h"
#include "stages.h"

/* A taken slot, handed from the main thread to a worker. */
struct work {
    uint32_t slot, gen;
    struct slot_header h;
};

void prove_work(const struct work *w);

void prove_work_verify(int on);

#endif
