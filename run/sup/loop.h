/* loop.h — the core's part of an event loop (loop.c): its descriptors
 * (core_pollfds) polled together with the caller's, handled when ready. */
#ifndef SLOTPROVE_LOOP_H
#define SLOTPROVE_LOOP_H

#include <poll.h>

#include "core_state.h"

/* One turn: polls the caller's n entries pf[0..n) together with the core's
 * (added after them; pf has room for max entries in all) for at most
 * timeout_ms, and handles the core's that are ready (core_on_fd). The
 * caller then looks at the revents of its own n entries and calls
 * core_tick. Returns 0 (EINTR counts as nothing ready), or -errno of poll. */
int core_loop_turn(struct core *c, struct pollfd *pf, int n, int max, int timeout_ms);

/* Runs turns of 100 ms and core_tick until *stop is set (by a hook), a
 * signal arrives on sig_fd (a signalfd, or -1 for none) or poll fails: 0,
 * the signal's number (> 0), or -errno of poll. */
int core_loop_until(struct core *c, const int *stop, int sig_fd);

#endif
