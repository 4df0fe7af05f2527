/*
 * fleet_status.c — `slotprove status --db`: the fleet as one client may see
 * it. Hosts (slots, leases held, proofs in the last minute and in all,
 * seconds since the last heartbeat, why a host takes no work), their keys,
 * the queue per key with the reason it does not move when no host holds
 * the key, and the client's own jobs by state. Counts over other users'
 * jobs come from SECURITY DEFINER functions (sql/001_init.sql), which give
 * no job ids.
 *
 * Key names, host ids and notes were chosen by other users and hosts and
 * may hold any byte: a newline would forge a line of this view, an ESC
 * sequence would drive the reader's terminal. The text view escapes their
 * control bytes as serve's log does (escape.h); --json leaves them to
 * jansson, which escapes every byte below 0x20 in a string (\n, \u001b).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fleet.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: slotprove status --db CONNINFO [--json]\n"
               "\n"
               "Prints the fleet: hosts (slots, leases, proofs per minute, last heartbeat,\n"
               "keys, why a host takes no work), the queue per key (and why it waits),\n"
               "and your jobs by state. --json prints the same as one JSON object.\n");
}

/* A string another user chose, for one line of the text view: control
 * bytes escaped into buf (cap bytes; a longer string is cut at a whole
 * escape). NULL (not UTF-8, so jansson kept no string) shows as "". */
static const char *shown(const char *s, char *buf, size_t cap)
{
    escape_ctl(buf, cap, s ? s : "");
    return buf;
}

static json_t *rows(PGresult *r)
{
    json_t *a = json_array();
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object();
        for (int c = 0; c < PQnfields(r); c++) {
            const char *v = PQgetvalue(r, i, c);
            json_t *j;
            if (PQgetisnull(r, i, c))
                j = json_null();
            else if (PQftype(r, c) == 20 || PQftype(r, c) == 23) /* int8, int4 */
                j = json_integer(atoll(v));
            else if (PQftype(r, c) == 701 || PQftype(r, c) == 1700) /* float8, numeric */
                j = json_real(atof(v));
            else
                j = json_string(v);
            json_object_set_new(o, PQfname(r, c), j ? j : json_null());
        }
        json_array_append_new(a, o);
    }
    return a;
}

int fleet_cmd_status(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *conninfo = NULL;
    int as_json = 0, c;
    static char prog[] = "slotprove status";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': conninfo = optarg; break;
        case 'j': as_json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    struct fleet_db db;
    struct sp_err e = { "" };
    PGresult *h = NULL, *k = NULL, *q = NULL, *j = NULL;
    int rc = 1;
    if (fleet_db_open_client(&db, conninfo, &e) < 0)
        goto out;
    h = fleet_db_exec(&db, "SELECT h.host_id, h.slots, o.leases, o.done_1m, o.done_total,"
                           " round(extract(epoch FROM now() - h.last_seen)::numeric, 1)::float8"
                           "   AS last_seen_s, h.note"
                           " FROM fleet_hosts h JOIN fleet_host_overview() o USING (host_id)"
                           " ORDER BY h.host_id", 0, NULL, &e);
    k = h ? fleet_db_exec(&db, "SELECT host_id, key_name, key_sha256 FROM fleet_host_keys "
                               "ORDER BY host_id, key_name", 0, NULL, &e) : NULL;
    q = k ? fleet_db_exec(&db, "SELECT key_name, queued, leased, holders FROM "
                               "fleet_queue_overview() ORDER BY key_name", 0, NULL, &e) : NULL;
    j = q ? fleet_db_exec(&db, "SELECT state, count(*) AS jobs FROM fleet_jobs "
                               "WHERE owner = current_user GROUP BY state ORDER BY state", 0, NULL,
                          &e) : NULL;
    if (!j)
        goto out;
    json_t *st = json_object();
    json_t *hosts = rows(h), *keys = rows(k), *queue = rows(q);
    size_t i, x;
    json_t *ho, *ko, *qo;
    json_array_foreach(hosts, i, ho) {
        json_t *ks = json_array();
        json_array_foreach(keys, x, ko)
            if (json_equal(json_object_get(ko, "host_id"), json_object_get(ho, "host_id")))
                json_array_append(ks, json_object_get(ko, "key_name"));
        json_object_set_new(ho, "keys", ks);
    }
    json_array_foreach(queue, i, qo)
        if (json_integer_value(json_object_get(qo, "holders")) == 0)
            json_object_set_new(qo, "waiting_because",
                                json_sprintf("no host with free slots holds key \"%s\" (preload "
                                             "it with serve --key on a host)",
                                             json_string_value(json_object_get(qo, "key_name"))));
    json_t *mine = json_object();
    for (int r = 0; r < PQntuples(j); r++)
        json_object_set_new(mine, PQgetvalue(j, r, 0), json_integer(atoll(PQgetvalue(j, r, 1))));
    json_object_set_new(st, "hosts", hosts);
    json_object_set_new(st, "queue", queue);
    json_object_set_new(st, "my_jobs", mine);
    json_decref(keys);
    if (as_json) {
        char *s = json_dumps(st, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s ? s : "{}");
        free(s);
    } else {
        char b1[4 * 256], b2[4 * 1024]; /* a name or id escaped; a note or reason */
        printf("hosts:\n");
        json_array_foreach(hosts, i, ho) {
            printf("  %-20s slots %lld  leases %lld  proofs/min %lld  proofs %lld  seen %.1f s ago\n",
                   shown(json_string_value(json_object_get(ho, "host_id")), b1, sizeof(b1)),
                   json_integer_value(json_object_get(ho, "slots")),
                   json_integer_value(json_object_get(ho, "leases")),
                   json_integer_value(json_object_get(ho, "done_1m")),
                   json_integer_value(json_object_get(ho, "done_total")),
                   json_real_value(json_object_get(ho, "last_seen_s")));
            const char *note = json_string_value(json_object_get(ho, "note"));
            if (note && *note)
                printf("      %s\n", shown(note, b2, sizeof(b2)));
            printf("      keys:");
            json_array_foreach(json_object_get(ho, "keys"), x, ko)
                printf(" %s", shown(json_string_value(ko), b1, sizeof(b1)));
            printf("\n");
        }
        printf("queue:\n");
        json_array_foreach(queue, i, qo) {
            printf("  key %-20s queued %lld  leased %lld  hosts holding it %lld\n",
                   shown(json_string_value(json_object_get(qo, "key_name")), b1, sizeof(b1)),
                   json_integer_value(json_object_get(qo, "queued")),
                   json_integer_value(json_object_get(qo, "leased")),
                   json_integer_value(json_object_get(qo, "holders")));
            if (json_object_get(qo, "waiting_because"))
                printf("      waiting: %s\n",
                       shown(json_string_value(json_object_get(qo, "waiting_because")), b2,
                             sizeof(b2)));
        }
        printf("my jobs:");
        const char *sk;
        json_t *sv;
        json_object_foreach(mine, sk, sv)
            printf(" %s %lld", sk, json_integer_value(sv));
        printf("\n");
    }
    json_decref(st);
    rc = fflush(stdout) == 0 ? 0 : 1;
out:
    if (rc)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "status failed");
    PQclear(h);
    PQclear(k);
    PQclear(q);
    PQclear(j);
    fleet_db_close(&db);
    return rc;
}
