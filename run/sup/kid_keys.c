/*
 * kid_keys.c — the keys the children hold (kid_keys.h): KEY_LOAD and
 * KEY_DROP messages, and which keys running jobs need.
 */
#include "kid_keys.h"
#include "ctl.h"

int core_send_key(struct core *c, struct kid *k, uint32_t key_id)
{
    static struct ctl_msg m;
    if (!k->alive || (k->keys_sent >> key_id & 1))
        return 0;
    const struct key_entry *ke = &c->keys.keys[key_id];
    /* synthds also get the key's shared synthesis index, once one exists */
    int fds[2] = { ke->fd, ke->synth_index_fd };
    int nfds = k->role == ROLE_SYNTHD && ke->has_synth_index ? 2 : 1;
    ctl_init(&m, CTL_KEY_LOAD);
    m.key_id = key_id;
    m.load_seq = ke->load_seq;
    m.key_kind = ke->kind;
    if (ke->kind == CTL_KEY_BELLPERSON) { /* .params and PCE, to every child */
        fds[1] = ke->pce_fd;
        nfds = 2;
    }
    ctl_text(&m, "%s", ke->name);
    int rc = ctl_send(k->p.ctl, &m, fds, nfds);
    if (rc == 0)
        k->keys_sent |= 1ull << key_id;
    return rc;
}

/* Every child forgets an evicted key. */
void core_drop_key(struct core *c, uint32_t key_id)
{
    static struct ctl_msg m;
    ctl_init(&m, CTL_KEY_DROP);
    m.key_id = key_id;
    for (unsigned i = 0; i < c->kids.nkids; i++) {
        struct kid *k = &c->kids.kids[i];
        if (k->alive && (k->keys_sent >> key_id & 1))
            ctl_send(k->p.ctl, &m, NULL, 0);
        k->keys_sent &= ~(1ull << key_id);
        k->keys_loaded &= ~(1ull << key_id);
    }
    for (unsigned g = 0; g < c->kids.ngpuds; g++)
        dispatch_gpud_key(&c->dsp, g, key_id, 0);
}

uint64_t core_busy_keys(const struct core *c)
{
    uint64_t m = 0;
    for (const struct job *j = c->jobs.head; j; j = j->next)
        if (j->state == JOB_RUNNING && !j->intake_pending)
            m |= 1ull << j->d.key_id;
    return m;
}
