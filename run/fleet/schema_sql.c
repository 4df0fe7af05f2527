/*
 * schema_sql.c — the run/fleet/sql/NNN_name.sql files, embedded into the
 * binary at build time (.incbin; the Makefile makes this object depend on
 * them), so `slotprove fleet init` needs no install directory and a binary
 * always applies the schema it was built with. A new file gets a line here
 * and in fleet_sql[] and FLEET_SCHEMA_VERSION in fleet.h.
 */
#include <stddef.h>

#include "fleet_sql.h"

#define EMBED(sym, file)                                                         \
    __asm__(".section .rodata\n"                                                 \
            ".global " #sym "\n"                                                 \
            ".type " #sym ", @object\n"                                          \
            ".balign 8\n" #sym ":\n"                                             \
            ".incbin \"" file "\"\n"                                             \
            ".byte 0\n"                                                          \
            ".previous\n")

EMBED(fleet_sql_001, "run/fleet/sql/001_init.sql");
EMBED(fleet_sql_002, "run/fleet/sql/002_round_trips.sql");
EMBED(fleet_sql_003, "run/fleet/sql/003_client_rows.sql");
extern const char fleet_sql_001[], fleet_sql_002[], fleet_sql_003[];

const struct fleet_sql fleet_sql[] = {
    { 1, "001_init.sql", fleet_sql_001 },
    { 2, "002_round_trips.sql", fleet_sql_002 },
    { 3, "003_client_rows.sql", fleet_sql_003 },
};
const size_t fleet_sql_count = sizeof(fleet_sql) / sizeof(fleet_sql[0]);
