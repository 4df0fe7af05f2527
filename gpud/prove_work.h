/*
 * prove_work.h — one partition, on a worker thread: the data off the slot
 * (the backend's prove_start), the slot's early release, the proof, its
 * check (proof_self_check, unless switched off), the result to the
 * supervisor (PROVED with the proof in binary, or PROVE_ERR with the
 * reason: a device backend's failures as -SP_EDEVICE).
 *
 *   prove_work(w)          w: a slot taken (PROVING) with its checked
 *                          header; the caller holds key_table_rdlock.
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

/* 1 unless the supervisor said --no-verify (prove_work_verify). */
int prove_work_self_verify(void);

/* A checked proof to the supervisor: the public signals it was checked
 * against (n_public × 32 bytes, CTL_PUBLIC messages; pub may be NULL),
 * then PROVED with the proof in binary and the stage times. */
void prove_work_send(const struct slot_header *h, const struct stage_times *t,
                     const uint8_t *pub, uint32_t n_public, const struct groth16_proof *proof);
void prove_work_verify(int on);

#endif
