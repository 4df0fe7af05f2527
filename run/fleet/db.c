/* db.c — see fleet.h: one libpq connection, reconnected with backoff. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fleet.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fleet_one_line(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        char c = *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p;
        if (c != ' ' || (o > s && o[-1] != ' '))
            *o++ = c;
    }
    while (o > s && o[-1] == ' ')
        o--;
    *o = 0;
}

static void quiet_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* NOTICEs ("already exists, skipping") are not errors */
}

static void backoff(struct fleet_db *db)
{
    if (db->backoff_ms == 0)
        db->backoff_ms = 100;
    else if (db->backoff_ms < db->backoff_max_ms)
        db->backoff_ms *= 2;
    if (db->backoff_max_ms && db->backoff_ms > db->backoff_max_ms)
        db->backoff_ms = db->backoff_max_ms;
    db->next_try_ns = mono_ns() + (uint64_t)db->backoff_ms * 1000000ull;
}

int fleet_db_connect(struct fleet_db *db, struct sp_err *e)
{
    /* our defaults first: keywords after "dbname" (the expanded conninfo)
     * would override the user's own settings */
    static const char *const keys[] = { "connect_timeout", "application_name", "keepalives_idle",
                                        "keepalives_interval", "keepalives_count", "dbname",
                                        NULL };
    const char *vals[] = { "5", "slotprove", "10", "5", "3", db->conninfo, NULL };
    fleet_db_close(db);
    db->pg = PQconnectdbParams(keys, vals, 1);
    if (db->pg && PQstatus(db->pg) == CONNECTION_OK) {
        db->backoff_ms = 0;
        db->failures = 0;
        PQsetNoticeProcessor(db->pg, quiet_notice, NULL);
        /* a statement that hangs ends; a session stalled inside a
         * transaction (the few of several statements) loses it, and its
         * locks, instead of holding them for everyone */
        PGresult *r = PQexec(db->pg, "SET statement_timeout = '30s'; "
                                     "SET idle_in_transaction_session_timeout = '10s'");
        PQclear(r);
        return 0;
    }
    char msg[400];
    snprintf(msg, sizeof(msg), "%s", db->pg ? PQerrorMessage(db->pg) : "out of memory");
    fleet_one_line(msg);
    fleet_db_close(db);
    db->failures++;
    backoff(db);
    return sp_fail(e, -ECONNREFUSED, "--db: cannot connect: %s", msg);
}

void fleet_db_close(struct fleet_db *db)
{
    if (db->pg)
        PQfinish(db->pg);
    db->pg = NULL;
}

PGresult *fleet_db_exec(struct fleet_db *db, const char *sql, int nparams,
                        const char *const *params, struct sp_err *e)
{
    if (!db->pg) {
        sp_fail(e, -ECONNRESET, "the database is not connected");
        return NULL;
    }
    uint64_t t0 = mono_ns();
    PGresult *r = PQexecParams(db->pg, sql, nparams, NULL, params, NULL, NULL, 0);
    db->busy_ns += mono_ns() - t0;
    db->calls++;
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return r;
    char msg[400];
    snprintf(msg, sizeof(msg), "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(db->pg));
    fleet_one_line(msg);
    PQclear(r);
    if (PQstatus(db->pg) != CONNECTION_OK) {
        sp_fail(e, -ECONNRESET, "the database connection was lost: %s", msg);
        fleet_db_close(db);
        backoff(db);
    } else {
        sp_fail(e, -EIO, "database: %s", msg);
    }
    return NULL;
}

int fleet_db_run(struct fleet_db *db, const char *sql, int nparams, const char *const *params,
                 struct sp_err *e)
{
    PGresult *r = fleet_db_exec(db, sql, nparams, params, e);
    if (!r)
        return db->pg ? -EIO : -ECONNRESET;
    PQclear(r);
    return 0;
}

int fleet_db_open_client(struct fleet_db *db, const char *conninfo, struct sp_err *e)
{
    memset(db, 0, sizeof(*db));
    db->conninfo = conninfo;
    return fleet_db_connect(db, e);
}
