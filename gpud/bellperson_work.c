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

void bellperson_work(const struct work *w, const struct child_key *k)
{
    const struct bellperson_key *bk = k->prover_key;
    const struct zkey *zk = &k->zk;
    struct slot_header h = w->h;
    struct sp_err e = { "" };
    struct stage_times t;
    uint64_t t0 = now_ns();
    int rc = 0;

    memset(&t, 0, sizeof t);
    struct payload_layout pl = payload_layout(zk->domain_size, zk->n_vars);
    const uint8_t *p = pool_payload(&gpud_pool, w->slot);
    /* off the slot first, so the synthesizers can refill it while we prove */
    uint8_t *abc = aligned_alloc(64, (size_t)(3 * pl.vec_bytes));
    uint8_t *wit = malloc((size_t)pl.witness_bytes);
    if (abc && wit) {
        memcpy(abc, p + pl.a, (size_t)(3 * pl.vec_bytes));
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
    if (rc == 0) {
        bls12381_fr_t *a = (bls12381_fr_t *)abc;
        rc = bp_prove_abc(&bk->key, &k->pce, wit, a, a + zk->domain_size,
                          a + 2 * (size_t)zk->domain_size, &A, &B, &C, gpud_backend.nthreads,
                          &e);
    }
    if (rc == 0) {
        t.ns[STAGE_PROVE] = now_ns() - t0;
        bp_proof_to_groth16(&proof, &A, &B, &C);
        if (prove_work_self_verify()) {
            uint64_t tv = now_ns();
            rc = groth16_verify(&bk->vk, wit + 32, zk->n_public, &proof, 0, &e);
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
