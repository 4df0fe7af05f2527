/*
 * gpud — the GPU-owning prover process (one per GPU; with no GPU, one that
 * runs the CPU backend). This file: its arguments and its start; the parts
 * are one idea a file (gpud/README.md lists them).
 *
 * The main thread sleeps in the wake loop (wake.h) and takes READY slots
 * (take.h); worker threads prove them (workers.h, prove_work.h) on the
 * backend chosen by select.h. Each slot's data is copied off by the backend
 * and the slot released before the heavy work, so synthd can refill it
 * while this proof finishes. Payloads are mapped read-only: gpud can never
 * corrupt a slot it may have to prove again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "key_table.h"
#include "parallel.h"
#include "prove_work.h"
#include "ring.h"
#include "select.h"
#include "send.h"
#include "state.h"
#include "status.h"
#include "wake.h"
#include "workers.h"
#include "log_stamp.h"

int main(int argc, char **argv)
{
    struct sp_err e = { "" };
    struct backend *be = &gpud_backend;

    int start = child_start(&gpud_args, argc, argv, "gpud", &gpud_pool, PROT_READ);
    if (start != 0)
        return start; /* 2: fatal (bad arguments); 1: the pool would not attach (shm/child.h) */
    /* the supervisor's --no-verify and --trace-buffers reach gpud as arguments */
    prove_work_verify(!gpud_args.no_verify);
    gpud_trace_buffers = gpud_args.trace_buffers;
    if (gpud_args.gpud_index >= gpud_pool.nrings) {
        diag(LOG_ERR, "gpud: the pool has no ticket ring %u", gpud_args.gpud_index);
        return 2;
    }
    /* --gpu: this gpud's one device, before anything touches CUDA */
    if (gpud_args.gpu && setenv("CUDA_VISIBLE_DEVICES", gpud_args.gpu, 1) < 0) {
        diag(LOG_ERR, "gpud: cannot select GPU %s", gpud_args.gpu);
        return 2;
    }
    backend_set_device_mem((size_t)gpud_args.gpu_mem, gpud_args.gpu_share); /* --gpu-mem, --gpu-share */
    if (backend_open(be, gpud_args.backend,
                     gpud_args.threads ? gpud_args.threads : parallel_threads(), &e) < 0) {
        diag(LOG_ERR, "gpud: %s", e.msg);
        return 2;
    }
    if (wake_init() < 0)
        return 2;
    if (be->ops->host_memory)
        be->ops->host_memory(be, gpud_pool.payload, (size_t)gpud_pool.payload_bytes);
    unsigned nworkers = be->ops->workers ? be->ops->workers : 1;
    const char *ws = getenv("SLOTPROVE_GPUD_WORKERS"); /* benchmarks: 1 against 2 */
    if (gpud_args.workers && gpud_args.workers <= WORKERS_MAX)
        nworkers = gpud_args.workers; /* serve's host-memory plan (run/serve/sizing_host.h) */
    else if (ws && atoi(ws) >= 1 && atoi(ws) <= WORKERS_MAX)
        nworkers = (unsigned)atoi(ws);
    key_table_init();
    if (workers_start(nworkers) < 0) {
        diag(LOG_ERR, "gpud: cannot start worker threads");
        return 2;
    }
    char hello[CTL_TEXT_MAX];
    snprintf(hello, sizeof(hello), "%s, %u worker%s", be->description, nworkers,
             nworkers == 1 ? "" : "s");
    send_msg(CTL_HELLO, 0, 0, 0, 0, NULL, hello);
    status_send();

    if (wake_loop() < 0)
        return 1;
    /* the partitions in the workers' hands finish (SHUTDOWN: "finish and
     * exit"); a lost GPU context ends them with errors at once */
    workers_stop();
    wake_exit();
    if (workers_lost()) {
        diag(LOG_ERR, "gpud: the GPU's context was lost; exiting so a fresh gpud takes the GPU");
        pool_detach(&gpud_pool);
        return 1;
    }
    backend_close(be);
    pool_detach(&gpud_pool);
    return 0;
}
