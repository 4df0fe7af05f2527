/* control.c — the supervisor's messages to gpud (see control.h). */
#include "control.h"

#include <errno.h>
#include <unistd.h>

#include "ctl.h"
#include "key_table.h"
#include "state.h"
#include "workers.h"

static int quit_requested;

int control_handle(void)
{
    static struct ctl_msg m;
    for (;;) {
        int fds[CTL_MAX_FDS], nfds;
        int rc = ctl_recv(gpud_args.ctl_fd, &m, fds, &nfds);
        if (rc == -EAGAIN)
            return 0;
        if (rc == -EPROTO)
            continue;
        if (rc <= 0)
            return 1; /* EOF: the supervisor is gone or closed us */
        int quit = 0;
        if (m.type == CTL_KEY_LOAD) /* its descriptors checked by the loader (child_keys.h) */
            key_table_load(&m, fds, nfds);
        else if (m.type == CTL_KEY_DROP)
            key_table_drop(m.key_id);
        else if (m.type == CTL_SHUTDOWN)
            quit = 1;
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        if (quit)
            return 1;
    }
}

int control_stopping(void)
{
    return quit_requested || workers_lost();
}

int control_between_proofs(void)
{
    if (!quit_requested && control_handle())
        quit_requested = 1;
    return control_stopping();
}
