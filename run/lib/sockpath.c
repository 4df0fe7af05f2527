/* sockpath.c — the daemon's socket when --socket is not given (sockpath.h). */
#include <stdlib.h>

#include "sockpath.h"

const char *default_socket_path(void)
{
    const char *s = getenv("SLOTPROVE_SOCKET");
    return s && *s ? s : DEFAULT_SOCKET;
}
