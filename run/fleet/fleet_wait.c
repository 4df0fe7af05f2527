/*
 * fleet_wait.c — `slotprove wait --db`: until the job ends, then its
 * results in partition order, written as `submit --wait` writes them.
 * Woken by NOTIFY on the job channel; polls once a second as the fallback
 * (a database without LISTEN/NOTIFY, or a missed notification). A lost
 * connection is made again, with backoff, for up to two minutes.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "output.h"

#define WAIT_POLL_MS 1000
#define WAIT_RECONNECT_S 120

static int write_job(struct fleet_db *db, const char *job, const char *proof_path,
                     const char *public_path, struct sp_err *e)
{
    const char *p[1] = { job };
    PGresult *r = fleet_db_exec(db, "SELECT idx, proof, public FROM fleet_partitions "
                                    "WHERE job_id = $1 ORDER BY idx", 1, p, e);
    if (!r)
        return -EIO;
    json_t *resp = json_object(), *proofs = json_array(), *pubs = json_array();
    json_object_set_new(resp, "proofs", proofs);
    json_object_set_new(resp, "public", pubs);
    int rc = 0;
    for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
        json_error_t je;
        json_t *pr = json_loads(PQgetvalue(r, i, 1), 0, &je);
        json_t *pu = json_loads(PQgetvalue(r, i, 2), 0, &je);
        if (atoi(PQgetvalue(r, i, 0)) != i || !json_is_object(pr) || !json_is_array(pu))
            rc = sp_fail(e, -EPROTO, "job %s: partition %d has no readable result in the "
                         "database", job, i);
        json_array_append_new(proofs, pr);
        json_array_append_new(pubs, pu);
    }
    size_t n = (size_t)PQntuples(r);
    PQclear(r);
    if (rc == 0)
        rc = write_results(resp, n, proof_path, public_path, e);
    json_decref(resp);
    return rc;
}

int fleet_wait_job(struct fleet_db *db, const char *job, const char *proof_path,
                   const char *public_path, struct sp_err *e)
{
    const char *p[1] = { job };
    time_t give_up = 0;
    int listening = 0;
    if (!db->backoff_max_ms)
        db->backoff_max_ms = 2000;
    for (;;) {
        /* a lost connection (the database restarting) is retried for
         * WAIT_RECONNECT_S; the job's state is the database's, not ours */
        if (!db->pg) {
            if (!give_up)
                give_up = time(NULL) + WAIT_RECONNECT_S;
            if (time(NULL) > give_up)
                return -ECONNRESET;
            poll(NULL, 0, (int)(db->backoff_ms ? db->backoff_ms : 100));
            if (fleet_db_connect(db, e) < 0)
                continue;
            listening = 0;
        }
        give_up = 0;
        if (!listening && fleet_db_run(db, "LISTEN " FLEET_NOTIFY_JOB, 0, NULL, e) < 0) {
            if (db->pg)
                return -EIO;
            continue;
        }
        listening = 1;
        PGresult *r = fleet_db_exec(db, "SELECT state, coalesce(error, '') FROM fleet_jobs "
                                        "WHERE job_id = $1", 1, p, e);
        if (!r) {
            if (db->pg)
                return -EIO;
            continue;
        }
        if (PQntuples(r) == 0) {
            PQclear(r);
            return sp_fail(e, -ENOENT, "no such job %s (or not yours)", job);
        }
        char state[16], err[400];
        snprintf(state, sizeof(state), "%s", PQgetvalue(r, 0, 0));
        snprintf(err, sizeof(err), "%s", PQgetvalue(r, 0, 1));
        PQclear(r);
        if (strcmp(state, "done") == 0) {
            if (proof_path)
                return write_job(db, job, proof_path, public_path, e);
            if (printf("done\n") < 0 || fflush(stdout) != 0)
                return sp_fail(e, -EIO, "stdout: %s", strerror(errno));
            return 0;
        }
        if (strcmp(state, "queued") != 0)
            return sp_fail(e, -EPROTO, "job %s ended in state \"%s\"%s%s", job, state,
                           err[0] ? ": " : "", err);
        struct pollfd pfd = { .fd = PQsocket(db->pg), .events = POLLIN };
        if (poll(&pfd, 1, WAIT_POLL_MS) > 0 && !PQconsumeInput(db->pg)) {
            fleet_db_close(db);
            continue;
        }
        PGnotify *n;
        while ((n = PQnotifies(db->pg)))
            PQfreemem(n);
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: slotprove wait --db CONNINFO [--proof PROOF.json --public PUBLIC.json] "
               "JOB\n"
               "\n"
               "Waits until the fleet job JOB ends; with --proof and --public writes its\n"
               "results as without --db. Exit 0 done, 1 failed, cancelled or another\n"
               "failure (the reason on stderr), 2 usage error.\n");
}

static int job_arg(const char *s, char job[JOB_ID_HEX + 1])
{
    if (strlen(s) != JOB_ID_HEX)
        return -1;
    for (int i = 0; i < JOB_ID_HEX; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'F')
            c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return -1;
        job[i] = c;
    }
    job[JOB_ID_HEX] = 0;
    return 0;
}

int fleet_cmd_wait(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "proof", required_argument, NULL, 'p' },
        { "public", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *conninfo = NULL, *proof = NULL, *pub = NULL;
    char job[JOB_ID_HEX + 1];
    int c;
    static char prog[] = "slotprove wait";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': conninfo = optarg; break;
        case 'p': proof = optarg; break;
        case 'P': pub = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 1 || job_arg(argv[optind], job) < 0 || !proof != !pub) {
        fprintf(stderr, "slotprove: %s\n\n", argc - optind != 1 ? "give one JOB id"
                        : !proof != !pub ? "give both --proof and --public, or neither"
                                         : "JOB is 32 hex digits");
        usage(stderr);
        return 2;
    }
    int orc = proof ? output_check_args("wait", proof, pub) : 0;
    if (orc != 0)
        return orc;
    struct fleet_db db;
    struct sp_err e = { "" };
    int rc = fleet_db_open_client(&db, conninfo, &e) == 0 &&
             fleet_wait_job(&db, job, proof, pub, &e) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "slotprove: %s\n", e.msg);
    fleet_db_close(&db);
    return rc;
}

/* ---- cancel ------------------------------------------------------------------- */

static void cancel_usage(FILE *f)
{
    fprintf(f, "usage: slotprove cancel --db CONNINFO JOB\n"
               "\n"
               "Cancels the fleet job JOB (yours only) and prints its state. Leases that\n"
               "hosts hold for it are voided: their results are refused by the fence.\n"
               "Exit 0 cancelled (or it had already ended: its state is printed), 1 no\n"
               "such job or another failure, 2 usage error.\n");
}

int fleet_cmd_cancel(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *conninfo = NULL;
    char job[JOB_ID_HEX + 1];
    int c;
    static char prog[] = "slotprove cancel";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': conninfo = optarg; break;
        case 'h': cancel_usage(stdout); return 0;
        default: cancel_usage(stderr); return 2;
        }
    }
    if (argc - optind != 1 || job_arg(argv[optind], job) < 0) {
        fprintf(stderr, "slotprove: give one JOB id (32 hex digits)\n\n");
        cancel_usage(stderr);
        return 2;
    }
    struct fleet_db db;
    struct sp_err e = { "" };
    const char *p[1] = { job };
    int rc = 1;
    PGresult *r = NULL;
    if (fleet_db_open_client(&db, conninfo, &e) < 0 || fleet_db_run(&db, "BEGIN", 0, NULL, &e) < 0)
        goto out;
    r = fleet_db_exec(&db, "UPDATE fleet_jobs SET state = 'cancelled', finished_at = now(), "
                           "error = 'cancelled by ' || current_user WHERE job_id = $1 "
                           "AND state = 'queued' RETURNING 1", 1, p, &e);
    if (!r)
        goto out;
    int cancelled = PQntuples(r) == 1;
    PQclear(r);
    r = NULL;
    if (cancelled &&
        (fleet_db_run(&db, "UPDATE fleet_partitions SET state = 'cancelled', lease_host = NULL, "
                           "lease_token = NULL, lease_expires = NULL WHERE job_id = $1 "
                           "AND state IN ('queued', 'leased')", 1, p, &e) < 0 ||
         fleet_db_run(&db, "SELECT pg_notify('" FLEET_NOTIFY_JOB "', $1)", 1, p, &e) < 0))
        goto out;
    r = fleet_db_exec(&db, "SELECT state FROM fleet_jobs WHERE job_id = $1", 1, p, &e);
    if (!r || fleet_db_run(&db, "COMMIT", 0, NULL, &e) < 0)
        goto out;
    if (PQntuples(r) == 0) {
        sp_fail(&e, -ENOENT, "no such job %s (or not yours)", job);
        goto out;
    }
    printf("%s\n", PQgetvalue(r, 0, 0));
    rc = fflush(stdout) == 0 ? 0 : 1;
out:
    if (rc)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "cancel failed");
    PQclear(r);
    fleet_db_close(&db);
    return rc;
}
