/*
 * claim.c — see fleet.h: registering a host and leasing work.
 *
 * A claim is one statement (fleet_claim, sql/002_round_trips.sql): the
 * oldest queued partitions whose job's key this host holds (by name, and
 * by SHA-256 when the job pinned one),
 * locked with FOR UPDATE SKIP LOCKED so hosts claiming at once take
 * different rows without waiting on each other, and leased under a fresh
 * token. `want` is the host's free slots: a host never leases more than it
 * can prove at once, and what it cannot take stays queued for the others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "pgarray.h"

int fleet_register(struct fleet_db *db, const struct fleetd_opts *o, unsigned slots,
                   const struct local_info *li, const char *note, struct sp_err *e)
{
    char nslots[16];
    snprintf(nslots, sizeof(nslots), "%u", slots);
    const char *names[64], *shas[64];
    for (unsigned i = 0; i < li->nkeys; i++) {
        names[i] = li->keys[i].name;
        shas[i] = li->keys[i].sha256;
    }
    char *an = pg_text_array(names, li->nkeys), *as = pg_text_array(shas, li->nkeys);
    const char *p[3] = { o->host_id, nslots, note };
    const char *k[3] = { o->host_id, an, as };
    int rc = -ENOMEM;
    if (an && as) {
        rc = fleet_db_run(db, "BEGIN", 0, NULL, e);
        if (rc == 0)
            rc = fleet_db_run(db, "INSERT INTO fleet_hosts (host_id, slots, note) VALUES ($1, $2, $3) "
                                  "ON CONFLICT (host_id) DO UPDATE SET slots = $2, note = $3, "
                                  "last_seen = now(), db_role = current_user", 3, p, e);
        if (rc == 0)
            rc = fleet_db_run(db, "DELETE FROM fleet_host_keys WHERE host_id = $1", 1, p, e);
        if (rc == 0)
            rc = fleet_db_run(db, "INSERT INTO fleet_host_keys SELECT $1, n, s "
                                  "FROM unnest($2::text[], $3::text[]) AS u(n, s)", 3, k, e);
        if (rc == 0)
            rc = fleet_db_run(db, "COMMIT", 0, NULL, e);
        else if (db->pg)
            fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
        /* new keys or slots may make queued work claimable */
        if (rc == 0)
            fleet_db_run(db, "SELECT pg_notify('" FLEET_NOTIFY_WORK "', '')", 0, NULL, NULL);
    } else {
        sp_fail(e, rc, "out of memory");
    }
    free(an);
    free(as);
    return rc;
}

int fleet_claim(struct fleet_db *db, const struct fleetd_opts *o, unsigned slots, unsigned want,
                struct fleet_part *parts, unsigned nparts, struct sp_err *e)
{
    char nwant[16], lease[16], nslots[16];
    snprintf(nwant, sizeof(nwant), "%u", want);
    snprintf(lease, sizeof(lease), "%u", o->lease_ms);
    snprintf(nslots, sizeof(nslots), "%u", slots);
    const char *p[4] = { o->host_id, nwant, nslots, lease };
    /* one statement (sql/002_round_trips.sql): claimed and logged, or nothing */
    PGresult *r = fleet_db_exec(db, "SELECT * FROM fleet_claim($1, $2, $3, $4)", 4, p, e);
    if (!r)
        return -EIO;
    int n = PQntuples(r), got = 0;
    for (int i = 0; i < n; i++) {
        struct fleet_part *fp = NULL;
        for (unsigned s = 0; s < nparts && !fp; s++)
            if (!parts[s].used)
                fp = &parts[s];
        if (!fp) /* cannot happen (want <= free entries); the lease would expire */
            break;
        memset(fp, 0, sizeof(*fp));
        fp->used = 1;
        fp->wfd = -1;
        fp->conn.fd = -1;
        snprintf(fp->job, sizeof(fp->job), "%s", PQgetvalue(r, i, 0));
        fp->idx = atoi(PQgetvalue(r, i, 1));
        fp->token = atoll(PQgetvalue(r, i, 2));
        snprintf(fp->wpath, sizeof(fp->wpath), "%s", PQgetvalue(r, i, 3));
        fp->wsize = strtoull(PQgetvalue(r, i, 4), NULL, 10);
        snprintf(fp->wsha, sizeof(fp->wsha), "%s", PQgetvalue(r, i, 5));
        snprintf(fp->key, sizeof(fp->key), "%s", PQgetvalue(r, i, 6));
        got++;
    }
    PQclear(r);
    return got;
}
