/* fleet_client.c — what the fleet's client commands share (fleet.h). */
#include <string.h>

#include "fleet.h"

int fleet_wants_db(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--db") == 0 || strncmp(argv[i], "--db=", 5) == 0)
            return 1;
    }
    return 0;
}
