/* bellperson_work.c — see bellperson_work.h. */
#include "bellperson_work.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_key.h"
#include "bellperson_proof.h"
#include "bellperson_prove.h"
#include "fault_delay.h"
#include "groth16.h"
#include "payload.h"
#include "pool_scan.h"
#include "send.h"
#include "state.h"
#include "log_stamp.h"

/* The proof on the backend's device where it has one (a, b kept), else,
 * or (--backend auto) when the device cannot, on the CPU (a, b used up;
 * c = a∘b formed in the third vector).
 * *on names where it was made. */
static int prove(const struct child_key *k, struct bellperson_key *bk, const uint8_t *wit,
                 bls12381_fr_t *a, bls12381_g1_affine_t *A, bls12381_g2_affine_t *B,
                 bls12381_g1_affine_t *C, const char **on, struct sp_err *e)
{
    struct backend *be = &gpud_backend;
    size_t n = k->zk.domain_size;
    int rc = -SP_EUNSUPPORTED;
    *on = "cpu";
    if (be->ops->bp_prove) {
        rc = be->ops->bp_prove(be, &bk->engine, &bk->key, &k->pce, wit, a, a + n, A, B, C, e);
        if (rc == 0) {
            *on = be->ops->name;
            return 0;
        }
        if (!be->fallback_on_fault) /* --backend cuda: no CPU behind it */
            return rc == -E2BIG || !be->ops->device_errors ? rc : -SP_EDEVICE;
        diag(LOG_WARN, "gpud: %s; this partition is proved on the CPU", e->msg);
        e->msg[0] = 0;
    }
    return bp_prove_abc(&bk->key, &k->pce, wit, a, a + n, a + 2 * n, A, B, C, be->nthreads, e);
}

void bellperson_work(const struct work *w, const struct child_key *k)
{
    struct bellperson_key *bk = k->prover_key;
    const struct zkey *zk = &k->zk;
    struct slot_header h = w->h;
    struct sp_err e = { "" };
    struct stage_times t;
    uint64_t t0 = now_ns();
    int rc = 0;

    memset(&t, 0, sizeof t);
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    const uint8_t *p = pool_payload(&gpud_pool, w->slot);
    /* off the slot first, so the synthesizers can refill it while we prove:
     * a, b, and room for c = a∘b after them */
    uint8_t *abc = aligned_alloc(64, (size_t)(3 * pl.vec_bytes));
    uint8_t *wit = malloc((size_t)pl.witness_bytes);
    if (abc && wit) {
        memcpy(abc, p + pl.a, (size_t)pl.vec_bytes);
        memcpy(abc + pl.vec_bytes, p + pl.b, (size_t)pl.vec_bytes);
        memcpy(wit, p + pl.witness, (size_t)pl.witness_bytes);
    } else {
        rc = sp_fail(&e, -ENOMEM, "gpud: out of memory for a 2^%u bellperson partition",
                     zk->log_domain);
    }
    slot_release(&gpud_pool, w->slot, w->gen, gpud_args.incarnation);
    pool_trace_buffers(&gpud_pool, gpud_trace_buffers, "gpud", gpud_args.incarnation, "release");
    fault_delay();
    fault_delay_released();
    if (rc == 0 && !bk)
        rc = sp_fail(&e, SP_EINTERNAL, "%s: bellperson key not decoded", k->name);

    struct progress_ctx pc = { h.job_id, h.partition };
    progress_set(&pc);
    bls12381_g1_affine_t A, C;
    bls12381_g2_affine_t B;
    struct groth16_proof proof;
    const char *on = "cpu";
    if (rc == 0)
        rc = prove(k, bk, wit, (bls12381_fr_t *)abc, &A, &B, &C, &on, &e);
    if (rc == 0) {
        t.ns[STAGE_PROVE] = now_ns() - t0;
        bp_proof_to_groth16(&proof, &A, &B, &C);
        if (prove_work_self_verify()) {
            uint64_t tv = now_ns();
            rc = groth16_verify(&bk->vk, wit + 32, zk->n_public, &proof, 0, &e);
            if (rc == -SP_EVERIFY && strcmp(on, "cpu") != 0) {
                /* a device fault fails the check as a bad witness does: the
                 * CPU tells them apart, from the vectors the device kept */
                bls12381_fr_t *a = (bls12381_fr_t *)abc;
                size_t n = zk->domain_size;
                diag(LOG_WARN, "gpud: the %s proof of job %llu partition %u failed its check; "
                        "proving it again on the CPU", on, (unsigned long long)h.job_id,
                        h.partition);
                e.msg[0] = 0;
                rc = bp_prove_abc(&bk->key, &k->pce, wit, a, a + n, a + 2 * n, &A, &B, &C,
                                  gpud_backend.nthreads, &e);
                if (rc == 0) {
                    bp_proof_to_groth16(&proof, &A, &B, &C);
                    rc = groth16_verify(&bk->vk, wit + 32, zk->n_public, &proof, 0, &e);
                }
            }
            t.ns[STAGE_VERIFY] = now_ns() - tv;
            if (rc < 0) {
                char why[sizeof e.msg];
                memcpy(why, e.msg, sizeof why);
                rc = sp_fail(&e, rc, "the proof fails its check against %s's vk (%s): the "
                             "witness does not satisfy the circuit", k->params_name, why);
            }
            send_progress(&pc, STAGE_VERIFY, t.ns[STAGE_VERIFY]);
        }
    }
    progress_set(NULL);
    if (rc < 0)
        send_msg(CTL_PROVE_ERR, h.job_id, h.partition, h.key_id, rc, NULL, e.msg);
    else
        prove_work_send(&h, &t, wit + 32, zk->n_public, &proof);
    free(abc);
    free(wit);
}
