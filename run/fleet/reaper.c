/*
 * reaper.c — see fleet.h: expired leases back to the queue.
 *
 * Every host runs the reaper on its timer. The work is one statement,
 * fleet_reap() (sql/002_round_trips.sql): under pg_try_advisory_xact_lock
 * one host at a time does it and the others skip (never wait); the jobs
 * touched are locked first, in job order, as a result write locks its job
 * before its partition, so the two never deadlock. An expired lease whose
 * partition has used its job's max_attempts fails the partition and the
 * job, with the reason; the others return to the queue and a NOTIFY wakes
 * the idle hosts. Being one statement, a host stalled mid-reap (SIGSTOP,
 * a lost network) holds neither the lock nor the rows.
 */
#include <errno.h>
#include <stdlib.h>

#include "fleet.h"

int fleet_reap(struct fleet_db *db, struct sp_err *e)
{
    PGresult *r = fleet_db_exec(db, "SELECT fleet_reap()", 0, NULL, e);
    if (!r)
        return -EIO;
    int n = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return n;
}
