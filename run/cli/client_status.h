/* client_status.h — `slotprove status`'s display (client_status.c). */
#ifndef SLOTPROVE_CLIENT_STATUS_H
#define SLOTPROVE_CLIENT_STATUS_H

#include <jansson.h>

/* Prints a status object (the daemon's "status" answer) as indented
 * "key: value" lines and tables on stdout. */
void client_print_status(json_t *status);

#endif
