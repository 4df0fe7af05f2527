/*
 * status.h — the backend's line for `slotprove status` (ops->status:
 * device memory, resident keys).
 *
 *   status_send()  asks the backend at most once a second (it reads the
 *                  device's memory), not on every wake, and sends the line
 *                  (BACKEND) when it changed, with the device memory
 *                  figures (ops->device_memory) in dev_budget_bytes and
 *                  dev_held_bytes.
 */
#ifndef SLOTPROVE_GPUD_STATUS_H
#define SLOTPROVE_GPUD_STATUS_H

void status_send(void);

#endif
