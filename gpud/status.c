/* status.c — the backend's status line (see status.h). */
#include "status.h"

#include <stdio.h>
#include <string.h>

#include "send.h"
#include "state.h"

void status_send(void)
{
    static char last[CTL_TEXT_MAX];
    static uint64_t asked_ns, last_budget, last_held;
    static struct ctl_msg m;
    char buf[512];
    uint64_t now = now_ns(), budget = 0, held = 0;
    struct backend *be = &gpud_backend;
    if (!be->ops->status || (asked_ns && now - asked_ns < 1000000000ull))
        return;
    asked_ns = now;
    if (be->ops->status(be, buf, sizeof(buf)) < 0)
        return;
    if (be->ops->device_memory)
        be->ops->device_memory(be, &budget, &held);
    if (strcmp(buf, last) == 0 && budget == last_budget && held == last_held)
        return;
    snprintf(last, sizeof(last), "%s", buf);
    last_budget = budget;
    last_held = held;
    ctl_init(&m, CTL_BACKEND);
    m.dev_budget_bytes = budget;
    m.dev_held_bytes = held;
    ctl_text(&m, "%s", buf);
    send_ctl(&m);
}
