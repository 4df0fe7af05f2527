/*
 * status.h — the backend's line for `slotprove status` (ops->status:
 * device memory, resident keys).
 *
 *   status_send()  asks the backend at most once a second (it reads the
 *                  device's memory), not on every wake, and sends the line
 *                  (BACKEND) when it changed.
 */
#ifndef SLOTPROVE_GPUD_STATUS_H
#define SLOTPROVE_GPUD_STATUS_H

void status_send(void);

#endif
