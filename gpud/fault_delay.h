/*
 * fault_delay.h — fault tests only: stretches the windows a test kills
 * gpud in (tests/faults.sh).
 *
 *   fault_delay()           sleeps $SLOTPROVE_FAULT_DELAY_MS milliseconds
 *                           (unset: not at all): called while a slot is
 *                           PROVING and again after its early release;
 *                           then, while the file $SLOTPROVE_FAULT_HOLD
 *                           names exists (at most 2 minutes), waits: the
 *                           synthds fill every slot meanwhile, so a test
 *                           can sample the pool full for as long as it
 *                           needs, then remove the file.
 *   fault_delay_released()  sleeps $SLOTPROVE_FAULT_RELEASED_MS ms: only
 *                           after the early release, so with two workers
 *                           gpud holds two released partitions at once;
 *                           then, while the file
 *                           $SLOTPROVE_FAULT_HOLD_RELEASED names exists (at
 *                           most 2 minutes), waits: the partition is off
 *                           its slot and only gpud has it, so a test can
 *                           kill gpud in that window for certain.
 */
#ifndef SLOTPROVE_GPUD_FAULT_DELAY_H
#define SLOTPROVE_GPUD_FAULT_DELAY_H

void fault_delay(void);
void fault_delay_released(void);

#endif
