/* prove_work.c — one partition on a worker thread (see prove_work.h). */
#include "prove_work.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_delay.h"
#include "key_format.h"
#include "key_table.h"
#include "payload.h"
#include "pool_scan.h"
#include "send.h"
#include "state.h"

/* Every proof is checked (proof_self_check) before it leaves gpud, unless
 * the supervisor was started with --no-verify. */
static int self_verify = 1;

void prove_work_verify(int on)
{
    self_verify = on;
}

/* A backend's error as the supervisor should read it: a device backend's
 * failures are the device's (the partition is proved again), never the
 * input's, except -E2BIG (a key the device cannot hold under `cuda`, no
 * CPU behind it: proving it again would fail again); the others' are
 * reported as they are. */
static int device_status(int rc)
{
    return gpud_backend.ops->device_errors && rc != -E2BIG ? -SP_EDEVICE : rc;
}

/* A checked proof to the supervisor: the public signals it was checked
 * against (n_public × 32 bytes, CTL_PUBLIC messages; pub may be NULL),
 * then PROVED with the proof in binary and the stage times. */
static void send_proof(const struct slot_header *hp, const struct stage_times *tp,
                     const uint8_t *pub, uint32_t n_public, const struct groth16_proof *proof,
                     int reproved)
{
    struct slot_header h = *hp;
    struct stage_times t = *tp;
    /* the proof travels in binary; the supervisor formats it, once */
    static __thread struct ctl_msg m;
    /* first the public signals it was checked against, in order on this
     * socket: a witness computed by synthd (an input job) has no
     * public.json until now */
    for (uint32_t first = 0; pub && first < n_public; first += CTL_TEXT_MAX / 32) {
        uint32_t n = n_public - first < CTL_TEXT_MAX / 32 ? n_public - first : CTL_TEXT_MAX / 32;
        ctl_init(&m, CTL_PUBLIC);
        m.job_id = h.job_id;
        m.partition = h.partition;
        m.key_id = h.key_id;
        m.first = first;
        ctl_bytes(&m, pub + (size_t)first * 32, n * 32);
        send_ctl(&m);
    }
    ctl_init(&m, CTL_PROVED);
    m.job_id = h.job_id;
    m.partition = h.partition;
    m.key_id = h.key_id;
    m.times = t;
    m.reproved = reproved ? 1 : 0;
    ctl_bytes(&m, proof, sizeof(*proof));
    send_ctl(&m);
}

void prove_work(const struct work *w)
{
    struct backend *be = &gpud_backend;
    struct sp_err e = { "" };
    struct stage_times t;
    const struct slot_header *hp = &w->h;
    struct slot_header h = *hp;
    uint32_t slot = w->slot, gen = w->gen;
    uint64_t t0 = now_ns();
    int rc, reproved = 0;

    memset(&t, 0, sizeof(t));
    /* the key's format: the backend's row proves, gpud's checks */
    const struct child_key *k = key_table_get(h.key_id);
    const struct backend_format *f = backend_format(be, k);
    const struct key_format *kf = key_format(k);
    const struct key_shape *sh = &k->shape;
    const uint8_t *p = pool_payload(&gpud_pool, slot);
    struct payload_layout pl = payload_layout(sh->domain_size, sh->n_vars);
    struct prove_input in = { p + pl.a, p + pl.b, p + pl.witness };
    void *job = NULL;
    /* the public signals, for the proof's check, before the slot goes */
    uint8_t *pub = malloc((size_t)sh->n_public * 32 + 32);
    if (pub)
        memcpy(pub, in.witness + 32, (size_t)sh->n_public * 32);
    rc = f->prove_start(be, k, &in, &job, &e);
    /* the data is off the slot (or the start failed): either way it is free */
    slot_release(&gpud_pool, slot, gen, gpud_args.incarnation);
    pool_trace_buffers(&gpud_pool, gpud_trace_buffers, "gpud", gpud_args.incarnation, "release");
    fault_delay();
    fault_delay_released();
    if (rc < 0) {
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, device_status(rc), NULL, e.msg);
        return;
    }
    struct groth16_proof proof;
    struct progress_ctx pc = { h.job_id, h.partition };
    progress_set(&pc);
    rc = f->prove_finish(be, k, job, &proof, &t, &e);
    if (rc < 0) {
        progress_set(NULL);
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, device_status(rc), NULL, e.msg);
        return;
    }
    t.ns[STAGE_PROVE] = now_ns() - t0;
    if (self_verify) {
        rc = pub ? kf->check(k, pub, &proof, &t.ns[STAGE_VERIFY], &e)
                 : sp_fail(&e, -ENOMEM, "gpud: out of memory for the public signals");
        if (rc == -SP_EVERIFY && f->reprove) {
            /* a device fault fails the check as an unsatisfied witness
             * does: prove once more another way before saying which */
            struct sp_err first = e;
            e.msg[0] = 0;
            int r = f->reprove(be, k, job, &proof, &t, &e);
            if (r > 0) { /* proved that other way already: the verdict stands */
                e = first;
            } else {
                /* the supervisor logs it with the job's id (PROVED's reproved,
                 * or the PROVE_ERR that follows) */
                reproved = 1;
                rc = r == 0 ? kf->check(k, pub, &proof, &t.ns[STAGE_VERIFY], &e) : r;
            }
        }
        send_progress(&pc, STAGE_VERIFY, t.ns[STAGE_VERIFY]);
    }
    progress_set(NULL);
    if (f->job_done)
        f->job_done(be, job);
    if (rc < 0) { /* a proof that fails is never sent */
        free(pub);
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
        return;
    }
    send_proof(&h, &t, pub, sh->n_public, &proof, reproved);
    free(pub);
}
