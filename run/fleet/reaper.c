/*
 * reaper.c — see fleet.h: expired leases back to the queue.
 *
 * Every host runs the reaper on its timer; pg_try_advisory_xact_lock makes
 * one of them do it at a time and the others skip (never wait). The jobs
 * touched are locked first, in job order, as a result write locks its job
 * before its partition, so the two never deadlock. An expired lease whose
 * partition has used its job's max_attempts fails the partition and the
 * job, with the reason; the others return to the queue and a NOTIFY wakes
 * the idle hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fleet.h"


static int reap_in_tx(struct fleet_db *db, struct sp_err *e)
{
    PGresult *r = fleet_db_exec(db, "SELECT pg_try_advisory_xact_lock(" FLEET_REAP_LOCK ")",
                                0, NULL, e);
    if (!r)
        return -EIO;
    int mine = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!mine)
        return 0;
    if (fleet_db_run(db, "SELECT 1 FROM fleet_jobs WHERE job_id IN (SELECT job_id FROM "
                         "fleet_partitions WHERE state = 'leased' AND lease_expires < now()) "
                         "ORDER BY job_id FOR UPDATE", 0, NULL, e) < 0 ||
        fleet_db_run(db, "UPDATE fleet_lease_log l SET outcome = 'expired' FROM fleet_partitions p "
                         "WHERE p.lease_token = l.lease_token AND p.state = 'leased' "
                         "AND p.lease_expires < now()", 0, NULL, e) < 0)
        return -EIO;
    r = fleet_db_exec(db, "UPDATE fleet_partitions p SET state = CASE WHEN p.attempts >= "
                          "j.max_attempts THEN 'failed' ELSE 'queued' END, error = CASE WHEN "
                          "p.attempts >= j.max_attempts THEN format('its lease expired %s times "
                          "(last on host %s): the hosts died or stalled while proving it', "
                          "p.attempts, p.lease_host) END, lease_host = NULL, lease_token = NULL, "
                          "lease_expires = NULL FROM fleet_jobs j WHERE j.job_id = p.job_id "
                          "AND p.state = 'leased' AND p.lease_expires < now() RETURNING p.state",
                      0, NULL, e);
    if (!r)
        return -EIO;
    int n = PQntuples(r), failed = 0;
    for (int i = 0; i < n; i++)
        failed += strcmp(PQgetvalue(r, i, 0), "failed") == 0;
    PQclear(r);
    if (failed) {
        r = fleet_db_exec(db, "UPDATE fleet_jobs j SET state = 'failed', finished_at = now(), "
                              "error = (SELECT format('partition %s: %s', p.idx, p.error) FROM "
                              "fleet_partitions p WHERE p.job_id = j.job_id AND p.state = 'failed' "
                              "ORDER BY p.idx LIMIT 1) WHERE j.state = 'queued' AND EXISTS "
                              "(SELECT 1 FROM fleet_partitions p WHERE p.job_id = j.job_id "
                              "AND p.state = 'failed') RETURNING j.job_id", 0, NULL, e);
        if (!r)
            return -EIO;
        for (int i = 0; i < PQntuples(r); i++) {
            const char *p[1] = { PQgetvalue(r, i, 0) };
            if (fleet_db_run(db, "UPDATE fleet_partitions SET state = 'cancelled', "
                                 "lease_host = NULL, lease_token = NULL, lease_expires = NULL "
                                 "WHERE job_id = $1 AND state IN ('queued', 'leased')", 1, p, e) < 0 ||
                fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_JOB "', $1)", 1, p, e) < 0) {
                PQclear(r);
                return -EIO;
            }
        }
        PQclear(r);
    }
    if (n > failed &&
        fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_WORK "', '')", 0, NULL, e) < 0)
        return -EIO;
    return n;
}

int fleet_reap(struct fleet_db *db, struct sp_err *e)
{
    if (fleet_db_run(db, "BEGIN", 0, NULL, e) < 0)
        return -EIO;
    int rc = reap_in_tx(db, e);
    if (rc >= 0 && fleet_db_run(db, "COMMIT", 0, NULL, e) < 0)
        rc = -EIO;
    else if (rc < 0 && db->pg)
        fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
    return rc;
}
