/* status.h — the daemon's status answer (status.c). */
#ifndef SLOTPROVE_STATUS_H
#define SLOTPROVE_STATUS_H

#include <sys/types.h>

#include "core_state.h"
#include "sizing.h"

/* The status answer for a client of uid viewer, one JSON line
 * (malloc'd): every process and slot, but only the viewer's own jobs (all
 * jobs for the daemon's own uid). sz: where serve's sizes came from, shown
 * as "sizing" (sizing.h); NULL for none. */
char *status_json(struct core *c, uid_t viewer, const struct sizing *sz);

#endif
