/* fleet_sql.h — the embedded schema files (schema_sql.c), oldest first. */
#ifndef SLOTPROVE_FLEET_SQL_H
#define SLOTPROVE_FLEET_SQL_H

#include <stddef.h>

struct fleet_sql {
    int version;               /* NNN of run/fleet/sql/NNN_name.sql */
    const char *name;
    const char *text;          /* NUL-terminated SQL */
};

extern const struct fleet_sql fleet_sql[];
extern const size_t fleet_sql_count;

#endif
