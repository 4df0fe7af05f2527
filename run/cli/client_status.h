/* client_status.h — `slotprove status`'s display (client_status.c). */
#ifndef SLOTPROVE_CLIENT_STATUS_H
#define SLOTPROVE_CLIENT_STATUS_H

#include <jansson.h>

/* Prints a summary of a status object (the daemon's "status" answer) on
 * stdout: version and uptime, jobs, proofs, slots (one slot size: the
 * pool's), each process (pid, state, restarts, Pss), each GPU's device
 * memory, the preloaded keys. Strings from the daemon are sanitized
 * (client_sanitize). `status --json` prints the whole object. */
void client_print_status(json_t *status);

#endif
