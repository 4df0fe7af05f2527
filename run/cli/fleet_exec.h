/*
 * fleet_exec.h — how `slotprove` reaches the fleet's commands: `fleet`,
 * `fleetd`, and `submit|wait|cancel|status --db` run the binary
 * slotprove-fleet beside slotprove (or in $SLOTPROVE_LIBEXEC, proc.h).
 * Only that binary links libpq, so serve's supervisor, synthd and gpud
 * never map libpq and the TLS, Kerberos and LDAP libraries it pulls in.
 * No libpq header here: this file is part of librun.
 */
#ifndef SLOTPROVE_FLEET_EXEC_H
#define SLOTPROVE_FLEET_EXEC_H

/* 1 when argv (argv[0] the command) carries --db before any "--". */
int fleet_wants_db(int argc, char **argv);

/* Replaces the process with slotprove-fleet argv[0] argv[1]...; returns
 * only on failure: 1, with "cannot run PATH: reason" on stderr. */
int fleet_exec(int argc, char **argv);

#endif
