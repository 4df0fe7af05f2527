/* fleet_init.c — `slotprove fleet init --db CONNINFO` (fleet.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "fleet.h"

static void fleet_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove fleet init --db CONNINFO\n"
            "\n"
            "Creates or upgrades the fleet's tables, roles (slotprove_host,\n"
            "slotprove_client) and row-level security in the PostgreSQL database\n"
            "CONNINFO (a libpq connection string or URI), from the SQL files this\n"
            "slotprove was built with (run/fleet/sql/). Idempotent: files already\n"
            "applied are skipped. Refuses a database whose schema is newer than this\n"
            "build knows. Run it as the database owner.\n"
            "\n"
            "Exit status: 0 the schema is current, 1 failure (the reason on stderr),\n"
            "2 usage error.\n");
}

int cmd_fleet(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *conninfo = NULL;
    int c;
    static char prog[] = "slotprove fleet";
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': conninfo = optarg; break;
        case 'h': fleet_usage(stdout); return 0;
        default: fleet_usage(stderr); return 2;
        }
    }
    if (argc - optind != 1 || strcmp(argv[optind], "init") != 0 || !conninfo) {
        fprintf(stderr, "slotprove: %s\n\n", !conninfo ? "give --db CONNINFO"
                                                        : "the only fleet command is \"init\"");
        fleet_usage(stderr);
        return 2;
    }
    struct fleet_db db;
    struct sp_err e = { "" };
    int from = 0, to = 0;
    if (fleet_db_open_client(&db, conninfo, &e) < 0 ||
        fleet_schema_apply(&db, &from, &to, &e) < 0) {
        fprintf(stderr, "slotprove: %s\n", e.msg);
        fleet_db_close(&db);
        return 1;
    }
    if (from == to)
        printf("fleet schema version %d: already current\n", to);
    else
        printf("fleet schema version %d (was %d)\n", to, from);
    fleet_db_close(&db);
    return 0;
}
