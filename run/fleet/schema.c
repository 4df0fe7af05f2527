/*
 * schema.c — see fleet.h: the schema applied from the embedded SQL files
 * (schema_sql.c). The version table is made here, not in a file, so that
 * every later file can rely on it; each file runs once, in order, inside
 * the one transaction that also moves fleet_meta.schema_version, under an
 * advisory lock so two `fleet init` at once apply nothing twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_sql.h"

#define SCHEMA_LOCK "7598543217"   /* advisory lock key of `fleet init` */

int fleet_schema_version(struct fleet_db *db, struct sp_err *e)
{
    PGresult *r = fleet_db_exec(db, "SELECT to_regclass('fleet_meta') IS NOT NULL", 0, NULL, e);
    if (!r)
        return -EIO;
    int have = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!have)
        return 0;
    r = fleet_db_exec(db, "SELECT schema_version FROM fleet_meta", 0, NULL, e);
    if (!r)
        return -EIO;
    int v = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return v;
}

int fleet_schema_apply(struct fleet_db *db, int *from, int *to, struct sp_err *e)
{
    int known = fleet_sql[fleet_sql_count - 1].version;
    if (fleet_db_run(db, "BEGIN", 0, NULL, e) < 0 ||
        fleet_db_run(db, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", 0, NULL, e) < 0 ||
        fleet_db_run(db, "CREATE TABLE IF NOT EXISTS fleet_meta ("
                         " one boolean PRIMARY KEY DEFAULT true CHECK (one),"
                         " schema_version integer NOT NULL)", 0, NULL, e) < 0 ||
        fleet_db_run(db, "INSERT INTO fleet_meta VALUES (true, 0) ON CONFLICT DO NOTHING", 0,
                     NULL, e) < 0)
        goto fail;
    int v = fleet_schema_version(db, e);
    if (v < 0)
        goto fail;
    *from = *to = v;
    if (v > known) {
        fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
        return sp_fail(e, -EPROTO, "--db: the database has fleet schema version %d, newer than "
                       "this slotprove knows (%d): upgrade slotprove; nothing was changed", v,
                       known);
    }
    for (size_t i = 0; i < fleet_sql_count; i++) {
        if (fleet_sql[i].version <= v)
            continue;
        PGresult *r = PQexec(db->pg, fleet_sql[i].text);
        if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
            char msg[400];
            snprintf(msg, sizeof(msg), "%s", PQresultErrorMessage(r));
            fleet_one_line(msg);
            PQclear(r);
            fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
            return sp_fail(e, -EIO, "run/fleet/sql/%s: %s; nothing was changed", fleet_sql[i].name,
                           msg);
        }
        PQclear(r);
        *to = fleet_sql[i].version;
    }
    char ver[16];
    snprintf(ver, sizeof(ver), "%d", *to);
    const char *p[1] = { ver };
    if (fleet_db_run(db, "UPDATE fleet_meta SET schema_version = $1", 1, p, e) < 0 ||
        fleet_db_run(db, "COMMIT", 0, NULL, e) < 0)
        goto fail;
    return 0;
fail:
    if (db->pg)
        fleet_db_run(db, "ROLLBACK", 0, NULL, NULL);
    return -EIO;
}
