/*
 * fault_point.h — named fault points, for the fault tests only (never set in
 * production). Used by every process of slotprove: the supervisor, keygen,
 * synthd and gpud (and the CUDA backend inside gpud).
 *
 * The environment says which point fires (tests/faults.sh sets it):
 *   SLOTPROVE_FAULT        the point's name, e.g. "synthd-start", "synthd-fill"
 *   SLOTPROVE_FAULT_MATCH  if set: fire only when the subject contains it
 *   SLOTPROVE_FAULT_ONCE   if set, a path: fire only for the call that
 *                          creates that file (O_EXCL), i.e. once in all
 *                          processes together
 *   SLOTPROVE_FAULT_SIGNAL fault_point_kill's signal (a number; default 9,
 *                          SIGKILL, as an external kill would)
 *   SLOTPROVE_FAULT_EXIT   if set: fault_point_kill calls _exit(this) instead
 * It sits in common/ because it reads the environment (shm/ does not) and
 * every room uses it.
 */
#ifndef SLOTPROVE_FAULT_POINT_H
#define SLOTPROVE_FAULT_POINT_H

/* 1 when $SLOTPROVE_FAULT names point and the MATCH / ONCE conditions above
 * hold for subject (a witness or key name, may be NULL); else 0. */
int fault_point(const char *point, const char *subject);

/* Ends the process (signal or _exit, as above) when fault_point(point,
 * subject) says so; otherwise returns. */
void fault_point_kill(const char *point, const char *subject);

#endif
