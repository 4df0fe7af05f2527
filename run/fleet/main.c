/*
 * main.c — slotprove-fleet, the fleet's binary (fleet_exec.h): `slotprove`
 * runs it for `fleet`, `fleetd` and the clients given --db, with the
 * command as argv[1]. Run directly it takes the same arguments.
 */
#include <stdio.h>
#include <string.h>

#include "fleet.h"

int main(int argc, char **argv)
{
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        { "fleet", cmd_fleet }, { "fleetd", cmd_fleetd }, { "submit", fleet_cmd_submit },
        { "wait", fleet_cmd_wait }, { "cancel", fleet_cmd_cancel }, { "status", fleet_cmd_status },
    };
    for (size_t i = 0; argc >= 2 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "usage: slotprove-fleet fleet|fleetd|submit|wait|cancel|status ARGS...\n"
                    "  (run by `slotprove fleet`, `slotprove fleetd` and `slotprove "
                    "submit|wait|cancel|status --db`)\n");
    return 2;
}
