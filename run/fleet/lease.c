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
 * A result write (fleet_deliver, sql/002_round_trips.sql) locks the job
 * row first, so the last two partitions of a job finishing on two hosts at
 * once serialise and exactly one of them sees every partition done and
 * ends the job.
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
    PGresult *r = fleet_db_exec(db, "WITH h AS (UPDATE fleet_hosts SET last_seen = now() "
                                    "WHERE host_id = $1) "
                                    "UPDATE fleet_partitions SET lease_expires = now() + "
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

int fleet_deliver(struct fleet_db *db, const struct fleetd_opts *o, const struct fleet_part *p,
                  int *refused, struct sp_err *e)
{
    static const char *const names[] = { [PART_DONE] = "done", [PART_FAILED] = "failed",
                                          [PART_RELEASE] = "released" };
    char idx[16], tok[24];
    snprintf(idx, sizeof(idx), "%d", p->idx);
    snprintf(tok, sizeof(tok), "%lld", p->token);
    int done = p->outcome == PART_DONE;
    const char *q[8] = { p->job, idx, tok, o->host_id, names[p->outcome],
                         done ? p->proof : NULL, done ? p->public_ : NULL,
                         done ? NULL : p->error };
    /* one statement (fleet_deliver, sql/002_round_trips.sql) */
    PGresult *r = fleet_db_exec(db, "SELECT fleet_deliver($1, $2, $3, $4, $5, $6, $7, $8)", 8,
                                q, e);
    if (!r)
        return -EIO;
    *refused = strcmp(PQgetvalue(r, 0, 0), "refused") == 0;
    PQclear(r);
    return 0;
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
