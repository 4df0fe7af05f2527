/*
 * workers.h — gpud's worker threads: each proves one taken slot at a time
 * (prove_work) while the main thread takes the next.
 *
 *   workers_start(n)    starts n (1..WORKERS_MAX) threads; 0 or -1.
 *   workers_wait_free() waits up to 100 ms for an idle worker; 1 if there
 *                       is one.
 *   workers_push(w)     hands w to a worker (the caller made sure one is
 *                       idle).
 *   workers_lost()      1 once the backend said it can prove nothing more
 *                       (ops->lost: a lost GPU context): gpud must exit.
 *   workers_stop()      the queued and running partitions finish, then the
 *                       threads are joined.
 */
#ifndef SLOTPROVE_GPUD_WORKERS_H
#define SLOTPROVE_GPUD_WORKERS_H

#include "child.h"
#include "prove_work.h"

#define WORKERS_MAX CHILD_MAX_WORKERS /* gpud --workers N: 1..WORKERS_MAX */

int workers_start(unsigned n);
int workers_wait_free(void);
void workers_push(const struct work *w);
int workers_lost(void);
void workers_stop(void);

#endif
