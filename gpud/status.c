/* status.c — the backend's status line (see status.h). */
#include "status.h"

#include <stdio.h>
#include <string.h>

#include "send.h"
#include "state.h"

void status_send(void)
{
    static char last[CTL_TEXT_MAX];
    static uint64_t asked_ns;
    char buf[512];
    uint64_t now = now_ns();
    struct backend *be = &gpud_backend;
    if (!be->ops->status || (asked_ns && now - asked_ns < 1000000000ull))
        return;
    asked_ns = now;
    if (be->ops->status(be, buf, sizeof(buf)) < 0)
        return;
    if (strcmp(buf, last) == 0)
        return;
    snprintf(last, sizeof(last), "%s", buf);
    send_msg(CTL_BACKEND, 0, 0, 0, 0, NULL, buf);
}
