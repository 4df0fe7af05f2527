/*
 * control.h — the supervisor's messages to gpud (ctl.h), on the main
 * thread: KEY_LOAD (with the key's fd), KEY_DROP, SHUTDOWN ("finish and
 * exit").
 *
 *   control_handle()          handles every queued message; 1 to exit
 *                             (SHUTDOWN, or EOF: the supervisor is gone).
 *   control_between_proofs()  between two taken slots: handles the queued
 *                             messages now, not after the last READY slot,
 *                             so a steady stream of work cannot starve a
 *                             key load; 1 once gpud is to stop (asked to,
 *                             or workers_lost()).
 *   control_stopping()        1 once gpud is to stop, without handling
 *                             anything.
 */
#ifndef SLOTPROVE_GPUD_CONTROL_H
#define SLOTPROVE_GPUD_CONTROL_H

int control_handle(void);
int control_between_proofs(void);
int control_stopping(void);

#endif
