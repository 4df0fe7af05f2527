/* take.c — taking READY slots for the workers (see take.h). */
#include "take.h"

#include <stdio.h>

#include "control.h"
#include "fault_delay.h"
#include "key_table.h"
#include "payload.h"
#include "pool_scan.h"
#include "ring.h"
#include "send.h"
#include "slot.h"
#include "stages.h"
#include "state.h"
#include "workers.h"

#define HOLE_GRACE_NS 200000000ull /* an unpublished ring head older than this is skipped */

/* Checks a taken slot's header against the key it names and the pool. */
static int check_header(const struct slot_header *h, uint32_t gen, struct sp_err *e)
{
    if (h->gen != gen)
        return sp_fail(e, SP_EINTERNAL, "slot header generation %u != slot generation %u",
                       h->gen, gen);
    const struct child_key *k = key_table_get(h->key_id);
    if (!k)
        return sp_fail(e, SP_EINTERNAL, "slot names key %u, which gpud has not loaded", h->key_id);
    const struct key_shape *zk = &k->shape;
    if (h->domain_size != zk->domain_size || h->n_vars != zk->n_vars)
        return sp_fail(e, SP_EINTERNAL,
                       "slot header (domain %llu, nVars %llu) does not match key %s (domain %u, nVars %u)",
                       (unsigned long long)h->domain_size, (unsigned long long)h->n_vars,
                       k->name, zk->domain_size, zk->n_vars);
    if (h->payload_bytes != payload_layout(zk->domain_size, zk->n_vars).total ||
        h->payload_bytes > gpud_pool.slot_bytes)
        return sp_fail(e, SP_EINTERNAL, "slot payload %llu bytes is inconsistent (slot %llu)",
                       (unsigned long long)h->payload_bytes,
                       (unsigned long long)gpud_pool.slot_bytes);
    return 0;
}

/* Takes one READY slot and hands it to a free worker (the caller made sure
 * there is one). */
static void take_slot(uint32_t slot, uint32_t gen)
{
    struct sp_err e = { "" };
    struct slot_header h;
    int rc;

    /* A restarted gpud finds the READY slots its predecessor left before the
     * supervisor's KEY_LOADs (sent after HELLO) arrive: leave a slot whose
     * key is not loaded yet READY; the scan after the next wake takes it. */
    if (slot_read_header(&gpud_pool, slot, &h) == 0 && h.gen == gen &&
        h.key_id < CTL_MAX_KEYS && !key_table_get(h.key_id))
        return;
    if (slot_take(&gpud_pool, slot, gen, gpud_args.incarnation) < 0)
        return; /* stale ticket: the slot moved on */
    pool_trace_buffers(&gpud_pool, gpud_trace_buffers, "gpud", gpud_args.incarnation, "take");
    fault_delay();
    if ((rc = slot_read_header(&gpud_pool, slot, &h)) < 0 || (rc = check_header(&h, gen, &e)) < 0) {
        if (!e.msg[0])
            snprintf(e.msg, sizeof(e.msg), "slot %u: unreadable header", slot);
        slot_invalidate(&gpud_pool, slot, gen, gpud_args.incarnation);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    /* tell the supervisor who holds this partition now: if gpud dies after
     * the early release, only it knows the partition must be redone */
    send_msg(CTL_TAKEN, h.job_id, h.partition, h.key_id, 0, NULL, NULL);
    workers_push(&(struct work){ slot, gen, h });
}

/* Between proofs, while every worker is busy: keeps handling the
 * supervisor's messages until one is free. 1 to stop. */
static int wait_worker(void)
{
    while (!workers_wait_free())
        if (control_between_proofs() || !child_supervisor_alive(&gpud_args))
            return 1;
    return control_stopping();
}

void take_ready(void)
{
    static uint64_t hole_since;
    struct ring_ticket tk;
    for (;;) {
        if (ring_pending(&gpud_pool, gpud_args.gpud_index) && wait_worker())
            return;
        if (ring_pop(&gpud_pool, gpud_args.gpud_index, &tk) == 0) {
            hole_since = 0;
            take_slot(tk.slot, tk.gen);
            if (control_between_proofs())
                return;
            continue;
        }
        if (ring_pending(&gpud_pool, gpud_args.gpud_index) == 0) {
            hole_since = 0;
            break;
        }
        /* the head is reserved but unpublished: wait a grace period, then
         * step past it (the table scan below still finds its slot) */
        uint64_t now = now_ns();
        if (!hole_since)
            hole_since = now;
        if (now - hole_since < HOLE_GRACE_NS || ring_skip_hole(&gpud_pool, gpud_args.gpud_index) < 0)
            break;
        hole_since = 0;
    }
    uint32_t slot, gen;
    while (pool_oldest_ready(&gpud_pool, &slot, &gen) == 0) {
        if (wait_worker())
            return;
        uint64_t before = slot_word(&gpud_pool, slot);
        take_slot(slot, gen);
        if (slot_word(&gpud_pool, slot) == before || control_between_proofs())
            break; /* could not take it; try again on the next wake */
    }
}
