/* exec.c — see fleet_exec.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet_exec.h"
#include "sibling.h"

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

int fleet_exec(int argc, char **argv)
{
    char path[PATH_MAX];
    int rc = sibling_path(path, sizeof(path), "slotprove-fleet");
    if (rc < 0) {
        fprintf(stderr, "slotprove: cannot locate slotprove-fleet: %s\n", strerror(-rc));
        return 1;
    }
    char **av = calloc((size_t)argc + 2, sizeof(*av));
    if (!av) {
        fprintf(stderr, "slotprove: out of memory\n");
        return 1;
    }
    av[0] = path;
    for (int i = 0; i < argc; i++)
        av[i + 1] = argv[i];
    execv(path, av);
    fprintf(stderr, "slotprove: cannot run %s: %s (the fleet's commands are there; install "
                    "it beside slotprove, or set SLOTPROVE_LIBEXEC)\n", path, strerror(errno));
    free(av);
    return 1;
}
