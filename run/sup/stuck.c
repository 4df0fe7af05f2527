/*
 * stuck.c — children left behind after a SIGKILL that did not take (stuck.h).
 */
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "slot.h"
#include "stages.h"
#include "stuck.h"

struct stuck_child *stuck_by_fd(struct stuck_table *t, int fd)
{
    for (unsigned i = 0; i < t->n; i++)
        if (t->c[i].p.pidfd == fd)
            return &t->c[i];
    return NULL;
}

unsigned stuck_slots(const struct pool *pool, uint32_t inc, uint32_t *out, unsigned max)
{
    unsigned n = 0;
    for (uint32_t s = 0; s < pool->nslots; s++) {
        uint64_t w = slot_word(pool, s);
        uint32_t st = slot_state_of(w);
        if (slot_owner_of(w) != inc || (st != SLOT_FILLING && st != SLOT_PROVING))
            continue;
        if (n < max)
            out[n] = s;
        n++;
    }
    return n;
}

void stuck_reap(struct stuck_table *t, struct stuck_child *s, uint64_t now)
{
    char desc[128];
    if (proc_reap(&s->p) != 1)
        return; /* readable pidfd, yet not reapable: try on its next wakeup */
    proc_describe(&s->p, desc, sizeof(desc));
    sup_log(LOG_NOTE, "event=stuck_exited role=%s pid=%d stuck_s=%.1f|%s pid %d (left behind "
            "stuck %.1f s ago) %s; its slots are released", s->gpud ? "gpud" : "synthd",
            (int)s->p.pid, (now - s->killed_ns) / 1e9, s->gpud ? "gpud" : "synthd", (int)s->p.pid,
            (now - s->left_ns) / 1e9, desc);
    proc_close(&s->p);
    t->exited++;
    *s = t->c[--t->n];
}

void stuck_forget_all(struct stuck_table *t)
{
    for (unsigned i = 0; i < t->n; i++) {
        struct stuck_child *s = &t->c[i];
        if (proc_reap(&s->p) != 1)
            sup_log(LOG_WARN,
                    "event=not_waited role=%s pid=%d|%s pid %d is still stuck (state %c) %.0f s "
                    "after SIGKILL: not waited for; it exits when its read returns",
                    s->gpud ? "gpud" : "synthd", (int)s->p.pid, s->gpud ? "gpud" : "synthd", (int)s->p.pid, s->state ? s->state : '?',
                    (now_ns() - s->killed_ns) / 1e9);
        proc_close(&s->p);
    }
    t->n = 0;
}
