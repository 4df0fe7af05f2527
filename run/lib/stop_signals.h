/*
 * stop_signals.h — the signals a slotprove process handles itself, blocked
 * in every one of its threads.
 *
 * SIGTERM, SIGINT and SIGHUP are read from a signalfd (or, in fleetd, taken
 * by ppoll's mask) by the one thread that runs the process's loop. A signal
 * the kernel sends to the process goes to any thread that has it unblocked;
 * a thread that had it unblocked would take its default action and end the
 * whole process without a drain (issue 35: the key loader's worker pool,
 * created before the mask, did exactly that). So stop_signals_block() is
 * called first in each command's entry, before any thread exists — worker
 * pools, intake readers, libmicrohttpd's thread all inherit the mask — and
 * no thread unblocks them. Children exec'd from the loop inherit it too
 * (synthd and gpud are stopped by their supervisor, never by these
 * signals); a witness program's child resets its mask before exec.
 */
#ifndef SLOTPROVE_STOP_SIGNALS_H
#define SLOTPROVE_STOP_SIGNALS_H

#include <signal.h>

#include "err.h"

/* The set: SIGTERM, SIGINT, SIGHUP. */
void stop_signals_set(sigset_t *set);

/* Blocks the set in the calling thread (to be called before any thread is
 * created); *old, if not NULL, gets the mask before. 0 or -errno. */
int stop_signals_block(sigset_t *old);

/* A non-blocking, close-on-exec signalfd for the set (already blocked by
 * stop_signals_block). The descriptor, or -errno. */
int stop_signals_fd(void);

/* For the one-shot commands (prove, fullprove): e gets "stopped by SIGNAME
 * before the proof was done; nothing written"; returns the exit status,
 * 128 + sig, as a shell reports a process killed by sig. */
int stopped_by_signal(int sig, struct sp_err *e);

#endif
