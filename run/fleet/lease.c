/*
 * lease.c — see fleet.h: keeping leases and writing results through them.
 *
 * The fence: every write a host makes to a partition names the lease token
 * it was given (WHERE state = 'leased' AND lease_token = $token). The
 * reaper, a cancel, or another host's claim after a reap all change or
 * clear the token, so a host that lost its lease (stopped past its expiry,
 * cut off from the database) can never overwrite anything: its update
 * matches no row and the result is dropped ("refused").
 *
 * A result write locks the job row first, so the last two partitions of a
 * job finishing on two hosts at once serialise and exactly one of them
 * sees every partition done and ends the job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "pgarray.h"

int fleet_heartbeat(struct fleet_db *db, const struct fleetd_opts *o, struct fleet_part *parts,
                    unsigned nparts, unsigned *lost, unsigned *nlost, struct sp_err *e)
{
    long long tok[FLEET_MAX_HELD];
    unsigned n = 0;
    *nlost = 0;
    for (unsigned i = 0; i < nparts; i++)
        if (parts[i].used)
            tok[n++] = parts[i].token;
    char lease[16], *arr = pg_bigint_array(tok, n);
    snprintf(lease, sizeof(lease), "%u", o->lease_ms);
    const char *p[3] = { o->host_id, lease, arr };
    if (!arr)
        return sp_fail(e, -ENOMEM, "out of memory");
    if (fleet_db_run(db, "UPDATE fleet_hosts SET last_seen = now() WHERE host_id = $1", 1, p, e) <
        0) {
        free(arr);
        return -EIO;
    }
    if (n == 0) {
        free(arr);
        return 0;
    }
    PGresult *r = fleet_db_exec(db, "UPDATE fleet_partitions SET lease_expires = now() + "
                                    "$2::integer * interval '1 millisecond' WHERE state = 'leased' "
                                    "AND lease_host = $1 AND lease_token = ANY($3::bigint[]) "
                                    "RETURNING lease_token", 3, p, e);
    free(arr);
    if (!r)
        return -EIO;
    for (unsigned i = 0; i < nparts; i++) {
        if (!parts[i].used)
            continue;
        int kept = 0;
        for (int t = 0; t < PQntuples(r) && !kept; t++)
            kept = atoll(PQgetvalue(r, t, 0)) == parts[i].token;
        if (!kept)
            lost[(*nlost)++] = i;
    }
    PQclear(r);
    return 0;
}

/* Ends job (locked) as failed with why, and cancels its other partitions. */
static int fail_job(struct fleet_db *db, const char *job, const char *why, struct sp_err *e)
{
    const char *p[2] = { job, why };
    if (fleet_db_run(db, "UPDATE fleet_jobs SET state = 'failed', error = $2, finished_at = now() "
                         "WHERE job_id = $1 AND state = 'queued'", 2, p, e) < 0 ||
        fleet_db_run(db, "UPDATE fleet_partitions SET state = 'cancelled', lease_host = NULL, "
                         "lease_token = NULL, lease_expires = NULL WHERE job_id = $1 "
                         "AND state IN ('queued', 'leased')", 1, p, e) < 0 ||
        fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_JOB "', $1)", 1, p, e) < 0)
        return -EIO;
    return 0;
}

static int deliver_in_tx(struct fleet_db *db, const struct fleetd_opts *o,
                         const struct fleet_part *p, int *refused, struct sp_err *e)
{
    char idx[16], tok[24];
    snprintf(idx, sizeof(idx), "%d", p->idx);
    snprintf(tok, sizeof(tok), "%lld", p->token);
    const char *jp[1] = { p->job };
    if (fleet_db_run(db, "SELECT 1 FROM fleet_jobs WHERE job_id = $1 FOR UPDATE", 1, jp, e) < 0)
        return -EIO;
    PGresult *r;
    const char *outcome;
    if (p->outcome == PART_DONE) {
        const char *q[6] = { p->job, idx, tok, o->host_id, p->proof, p->public_ };
        r = fleet_db_exec(db, "UPDATE fleet_partitions SET state = 'done', proof = $5, public = $6, "
                              "done_by = $4, done_at = now(), lease_host = NULL, lease_token = NULL, "
                              "lease_expires = NULL WHERE job_id = $1 AND idx = $2 "
                              "AND state = 'leased' AND lease_token = $3 RETURNING 1", 6, q, e);
        outcome = "done";
    } else if (p->outcome == PART_FAILED) {
        const char *q[4] = { p->job, idx, tok, p->error };
        r = fleet_db_exec(db, "UPDATE fleet_partitions SET state = 'failed', error = $4, "
                              "lease_host = NULL, lease_token = NULL, lease_expires = NULL "
                              "WHERE job_id = $1 AND idx = $2 AND state = 'leased' "
                              "AND lease_token = $3 RETURNING 1", 4, q, e);
        outcome = "failed";
    } else {
        /* released: back to the queue, or failed once its attempts are spent */
        const char *q[4] = { p->job, idx, tok, p->error };
        r = fleet_db_exec(db, "UPDATE fleet_partitions p SET state = CASE WHEN p.attempts >= "
                              "j.max_attempts THEN 'failed' ELSE 'queued' END, error = CASE WHEN "
                              "p.attempts >= j.max_attempts THEN format('%s attempts, the last: %s', "
                              "p.attempts, $4::text) END, lease_host = NULL, lease_token = NULL, "
                              "lease_expires = NULL FROM fleet_jobs j WHERE j.job_id = p.job_id "
                              "AND p.job_id = $1 AND p.idx = $2 AND p.state = 'leased' "
                              "AND p.lease_token = $3 RETURNING p.state, p.error", 4, q, e);
        outcome = "released";
    }
    if (!r)
        return -EIO;
    *refused = PQntuples(r) == 0;
    char why[700] = "";
    int failed_now = p->outcome == PART_FAILED ||
                     (!*refused && strcmp(PQgetvalue(r, 0, 0), "failed") == 0);
    if (!*refused && failed_now)
        snprintf(why, sizeof(why), "partition %d: %s", p->idx,
                 p->outcome == PART_FAILED ? p->error : PQgetvalue(r, 0, 1));
    PQclear(r);
    const char *lp[2] = { tok, *refused ? "refused" : outcome };
    if (fleet_db_run(db, "UPDATE fleet_lease_log SET outcome = $2 WHERE lease_token = $1", 2, lp,
                     e) < 0)
        return -EIO;
    if (*refused)
        return 0;
    if (failed_now)
        return fail_job(db, p->job, why, e);
    if (p->outcome == PART_RELEASE)
        return fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_WORK "', '')", 0, NULL, e);
    const char *hp[1] = { o->host_id };
    if (fleet_db_run(db, "UPDATE fleet_hosts SET proofs = proofs + 1 WHERE host_id = $1", 1, hp,
                     e) < 0)
        return -EIO;
    r = fleet_db_exec(db, "UPDATE fleet_jobs SET state = 'done', finished_at = now() "
                          "WHERE job_id = $1 AND state = 'queued' AND NOT EXISTS (SELECT 1 FROM "
                          "fleet_partitions WHERE job_id = $1 AND state <> 'done') RETURNING 1", 1,
                      jp, e);
    if (!r)
        return -EIO;
    int ended = PQntuples(r) == 1;
    PQclear(r);
    if (ended)
        return fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_JOB "', $1)", 1, jp, e);
    return 0;
}

int fleet_deliver(struct fleet_db *db, const struct fleetd_opts *o, const struct fleet_part *p,
                  int *refused, struct sp_err *e)
{
    if (fleet_db_run(db, "BEGIN", 0, NULL, e) < 0)
        return -EIO;
    int rc = deliver_in_tx(db, o, p, refused, e);
    if (rc == 0)
        rc = fleet_db_run(db, "COMMIT", 0, NULL, e);
    else if (db->pg)
        fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
    return rc;
}

int fleet_release_stale(struct fleet_db *db, const struct fleetd_opts *o,
                        const struct fleet_part *parts, unsigned nparts, struct sp_err *e)
{
    long long tok[FLEET_MAX_HELD];
    unsigned n = 0;
    for (unsigned i = 0; i < nparts; i++)
        if (parts[i].used)
            tok[n++] = parts[i].token;
    char *arr = pg_bigint_array(tok, n);
    if (!arr)
        return sp_fail(e, -ENOMEM, "out of memory");
    const char *p[2] = { o->host_id, arr };
    int rc = fleet_db_run(db, "BEGIN", 0, NULL, e);
    if (rc == 0)
        rc = fleet_db_run(db, "UPDATE fleet_lease_log l SET outcome = 'released' FROM "
                              "fleet_partitions p WHERE p.lease_token = l.lease_token AND "
                              "p.state = 'leased' AND p.lease_host = $1 AND NOT "
                              "(p.lease_token = ANY($2::bigint[]))", 2, p, e);
    PGresult *r = rc == 0 ? fleet_db_exec(db, "UPDATE fleet_partitions SET state = 'queued', "
                                              "lease_host = NULL, lease_token = NULL, "
                                              "lease_expires = NULL WHERE state = 'leased' AND "
                                              "lease_host = $1 AND NOT (lease_token = "
                                              "ANY($2::bigint[])) RETURNING 1", 2, p, e)
                          : NULL;
    free(arr);
    if (!r) {
        if (db->pg)
            fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
        return -EIO;
    }
    int nrel = PQntuples(r);
    PQclear(r);
    if (fleet_db_run(db, "COMMIT", 0, NULL, e) < 0)
        return -EIO;
    if (nrel > 0)
        fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_WORK "', '')", 0, NULL, NULL);
    return nrel;
}
