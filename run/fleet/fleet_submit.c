/*
 * fleet_submit.c — `slotprove submit --db`: a job into the fleet's queue.
 *
 * Witnesses travel by reference: each --witness is resolved to an absolute
 * path (storage every host mounts at the same place) and recorded with its
 * size and SHA-256, read here; the host that proves it reads it again and
 * fails the partition if either differs. The key is named as the hosts
 * preloaded it; when the hosts registered one SHA-256 for that name the job
 * is pinned to it (--key-sha256 pins it explicitly).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "args.h"
#include "fleet.h"
#include "output.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove submit --db CONNINFO --key NAME --witness W.wtns...\n"
            "                        [--key-sha256 HEX] [--max-attempts N]\n"
            "                        [--wait --proof PROOF.json --public PUBLIC.json]\n"
            "\n"
            "Queues a job in the fleet's database: one proof per witness (at most %d),\n"
            "with the key the fleet's hosts preloaded as NAME. Witness paths must be on\n"
            "storage every host mounts at the same path; each is recorded with its size\n"
            "and SHA-256, and a host that finds either changed fails that partition.\n"
            "Prints the job id. --wait, --proof and --public as without --db.\n"
            "\n"
            "  --key-sha256 HEX  only hosts whose key NAME has this SHA-256 (default:\n"
            "                    the one the hosts registered, when they agree)\n"
            "  --max-attempts N  leases a partition may use up before it fails (default 3)\n"
            "\n"
            "Exit status: 0 queued (with --wait: proved and written), 1 failure, 2 usage.\n",
            REQUEST_MAX_WITNESSES);
}

static int new_job_id(char id[JOB_ID_HEX + 1])
{
    unsigned char b[16];
    if (getrandom(b, sizeof(b), 0) != sizeof(b))
        return -EIO;
    for (int i = 0; i < 16; i++)
        snprintf(id + 2 * i, 3, "%02x", b[i]);
    return 0;
}

static int is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

int fleet_cmd_submit(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "key", required_argument, NULL, 'k' },
        { "key-sha256", required_argument, NULL, 'K' },
        { "witness", required_argument, NULL, 'w' },
        { "max-attempts", required_argument, NULL, 'a' },
        { "proof", required_argument, NULL, 'p' },
        { "public", required_argument, NULL, 'P' },
        { "wait", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *conninfo = NULL, *key = NULL, *keysha = NULL, *proof = NULL, *pub = NULL;
    const char *wit[REQUEST_MAX_WITNESSES];
    unsigned nwit = 0, too_many = 0, attempts = 3;
    int wait = 0, c;
    static char prog[] = "slotprove submit";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': conninfo = optarg; break;
        case 'k': key = optarg; break;
        case 'K': keysha = optarg; break;
        case 'w':
            if (nwit < REQUEST_MAX_WITNESSES)
                wit[nwit++] = optarg;
            else
                too_many = 1;
            break;
        case 'a':
            if (parse_count(optarg, 1, 100, &attempts) < 0) {
                fprintf(stderr, "slotprove: --max-attempts \"%s\": 1..100\n", optarg);
                return 2;
            }
            break;
        case 'p': proof = optarg; break;
        case 'P': pub = optarg; break;
        case 'W': wait = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    const char *why = optind < argc ? "unexpected argument"
                      : !key ? "give --key NAME (a key the fleet's hosts preloaded; --zkey "
                               "is for a local serve)"
                      : strlen(key) > REQUEST_NAME_MAX ? "--key: at most 255 bytes"
                      : !nwit ? "give at least one --witness"
                      : too_many ? "at most 64 witnesses per job"
                      : keysha && !is_hex64(keysha) ? "--key-sha256: 64 lowercase hex digits"
                      : wait && (!proof || !pub) ? "--wait needs --proof and --public"
                      : !wait && (proof || pub) ? "--proof and --public are written by --wait"
                      : NULL;
    if (why) {
        fprintf(stderr, "slotprove: %s\n\n", why);
        usage(stderr);
        return 2;
    }
    int orc = wait ? output_check_args("submit", proof, pub) : 0;
    if (orc != 0)
        return orc;

    struct sp_err e = { "" };
    struct fleet_db db = { 0 };
    struct witness_ref *refs = calloc(nwit, sizeof(*refs));
    char job[JOB_ID_HEX + 1], sha[65] = "";
    int rc = 1;
    if (!refs || new_job_id(job) < 0) {
        sp_fail(&e, -ENOMEM, "out of memory or randomness");
        goto out;
    }
    for (unsigned i = 0; i < nwit; i++)
        if (witness_ref_take(wit[i], &refs[i], &e) < 0)
            goto out;
    if (fleet_db_open_client(&db, conninfo, &e) < 0)
        goto out;
    if (keysha) {
        snprintf(sha, sizeof(sha), "%s", keysha);
    } else {
        const char *p[1] = { key };
        PGresult *r = fleet_db_exec(&db, "SELECT DISTINCT key_sha256 FROM fleet_host_keys "
                                         "WHERE key_name = $1", 1, p, &e);
        if (!r)
            goto out;
        if (PQntuples(r) == 1)
            snprintf(sha, sizeof(sha), "%s", PQgetvalue(r, 0, 0));
        else if (PQntuples(r) == 0)
            fprintf(stderr, "slotprove: note: no host holds a key \"%s\" now; the job waits "
                            "until one does (slotprove status --db)\n", key);
        else
            fprintf(stderr, "slotprove: note: hosts hold different files as key \"%s\"; the job "
                            "is not pinned to one (give --key-sha256)\n", key);
        PQclear(r);
    }
    char nparts[16], natt[16];
    snprintf(nparts, sizeof(nparts), "%u", nwit);
    snprintf(natt, sizeof(natt), "%u", attempts);
    const char *jp[5] = { job, key, sha[0] ? sha : NULL, nparts, natt };
    if (fleet_db_run(&db, "BEGIN", 0, NULL, &e) < 0 ||
        fleet_db_run(&db, "INSERT INTO fleet_jobs (job_id, key_name, key_sha256, nparts, "
                          "max_attempts) VALUES ($1, $2, $3, $4, $5)", 5, jp, &e) < 0)
        goto out;
    for (unsigned i = 0; i < nwit; i++) {
        char idx[16], size[24];
        snprintf(idx, sizeof(idx), "%u", i);
        snprintf(size, sizeof(size), "%llu", (unsigned long long)refs[i].size);
        const char *pp[5] = { job, idx, refs[i].path, size, refs[i].sha256 };
        if (fleet_db_run(&db, "INSERT INTO fleet_partitions (job_id, idx, witness_path, "
                              "witness_size, witness_sha256) VALUES ($1, $2, $3, $4, $5)", 5, pp,
                         &e) < 0)
            goto out;
    }
    if (fleet_db_run(&db, "SELECT pg_notify('" FLEET_NOTIFY_WORK "', '')", 0, NULL, &e) < 0 ||
        fleet_db_run(&db, "COMMIT", 0, NULL, &e) < 0)
        goto out;
    if (printf("%s\n", job) < 0 || fflush(stdout) != 0) {
        sp_fail(&e, -EIO, "stdout: %s", strerror(errno));
        goto out;
    }
    if (wait && fleet_wait_job(&db, job, proof, pub, &e) < 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "submit failed");
    fleet_db_close(&db);
    free(refs);
    return rc;
}
