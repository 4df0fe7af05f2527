/*
 * take.h — taking READY slots (slot.h, ring.h) for the workers, on the main
 * thread.
 *
 *   take_ready()  hands every READY slot to a worker, as workers free up:
 *                 first the ticket ring's FIFO order (an unpublished head
 *                 older than a grace period is stepped past), then a scan
 *                 of the slot table for READY slots the ring missed (a
 *                 producer that died between reserving and publishing a
 *                 ticket). Each slot is taken with a CAS on exactly (READY,
 *                 generation) and its header checked against the key it
 *                 names and the pool (a bad one is invalidated and reported
 *                 with PROVE_ERR); the supervisor is told (TAKEN) before a
 *                 worker gets it. A slot whose key is not loaded yet stays
 *                 READY. Returns early when gpud is to stop
 *                 (control_between_proofs).
 */
#ifndef SLOTPROVE_GPUD_TAKE_H
#define SLOTPROVE_GPUD_TAKE_H

void take_ready(void);

#endif
