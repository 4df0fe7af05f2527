/*
 * witness_open.h — a leased partition's witness opened and hashed on a
 * helper thread, never in fleetd's loop (issue 36.3).
 *
 * A witness travels by path (fleet.h). The path a client recorded may name
 * a FIFO (open(2) would wait for a writer), a device, or a file on a mount
 * that hangs (open and read sleep until it returns): done in fleetd's only
 * loop, any of these stopped its heartbeat, its reaper and its claims. So
 * the loop starts a thread per witness: it opens the path without blocking
 * (O_NONBLOCK: a FIFO opens at once), refuses anything but a regular file,
 * and hashes it (witness_hash_fd). The loop polls the handle's eventfd and
 * takes the result; past the deadline (fleetd --file-timeout, default 30 s)
 * it fails that partition and abandons the thread, which frees everything
 * when its system call finally returns. At most WITNESS_OPEN_STUCK_MAX
 * threads may be abandoned at once; fleetd claims no new work while that
 * many are stuck, so a hung mount costs a bounded number of threads.
 */
#ifndef SLOTPROVE_FLEET_WITNESS_OPEN_H
#define SLOTPROVE_FLEET_WITNESS_OPEN_H

#include <sys/stat.h>

#include "err.h"

#define WITNESS_OPEN_STUCK_MAX 64u

struct witness_open;

/* Starts the thread for path (copied). The handle, or NULL with e. */
struct witness_open *witness_open_start(const char *path, struct sp_err *e);

/* The eventfd that becomes readable when the thread has finished. */
int witness_open_pollfd(const struct witness_open *w);

/* Whether the thread has finished (without blocking). */
int witness_open_done(struct witness_open *w);

/* After witness_open_done: the open descriptor (*fd, close-on-exec), the
 * SHA-256 in hex and the stat as hashed; or a negative code with "path:
 * reason" in e ("not a regular file (a FIFO)", ENOENT, a read error).
 * Frees w either way. */
int witness_open_take(struct witness_open *w, int *fd, char hex[65], struct stat *st,
                      struct sp_err *e);

/* Gives up on w (its deadline passed): the thread frees it on return. */
void witness_open_abandon(struct witness_open *w);

/* Threads abandoned and not yet returned. */
unsigned witness_open_stuck(void);

#endif
