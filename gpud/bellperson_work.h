/*
 * bellperson_work.h — one bellperson partition on a worker thread (issue
 * 23): proved from its slot with bellperson's conventions
 * (gpud/cpu/bellperson_prove.h), checked against the file's own vk, sent
 * as a zkey's proof is.
 *
 *   bellperson_work(w, k)    w: a taken slot of key k (bellperson_key.h;
 *       the caller holds key_table_rdlock): a, b and the witness copied
 *       off, the slot released, c = a∘b formed and the proof computed
 *       (gpud/cpu/bellperson_prove.h, or the device's), checked (unless
 *       --no-verify) and sent (prove_work_send), or PROVE_ERR with the
 *       reason.
 */
#ifndef SLOTPROVE_GPUD_BELLPERSON_WORK_H
#define SLOTPROVE_GPUD_BELLPERSON_WORK_H

#include "child_keys.h"
#include "prove_work.h"

void bellperson_work(const struct work *w, const struct child_key *k);

#endif
