/*
 * backend.h — the prover backend interface of gpud.
 *
 * A backend turns one slot's vectors into a Groth16 proof. The work is split
 * in two so a slot can be released as early as possible:
 *   prove_start   takes what it needs off the slot (the CPU backend copies it
 *                 into its own buffers; the CUDA backend will upload it) —
 *                 after it returns, the caller releases the slot;
 *   prove_finish  does the rest and assembles the proof.
 * The CPU backend is a real, multi-threaded backend: the one CI tests and the
 * correctness oracle for the CUDA one.
 */
#ifndef SLOTPROVE_BACKEND_H
#define SLOTPROVE_BACKEND_H

#include <stdint.h>

#include "err.h"
#include "proof.h"
#include "stages.h"
#include "zkey.h"

/* Read-only views into a READY slot's payload (layout: shm/payload.h). */
struct prove_input {
    const uint8_t *a, *b, *c; /* domain_size × 32 B each, Fr Montgomery form */
    const uint8_t *witness;   /* n_vars × 32 B, Fr standard form */
};

struct backend;
struct backend_ops {
    const char *name;
    unsigned workers; /* proofs gpud runs at once on this backend (0: 1) */
    int (*open)(struct backend *be, struct sp_err *e);
    int (*prove_start)(struct backend *be, const struct zkey *zk,
                       const struct prove_input *in, void **job, struct sp_err *e);
    /* On failure the job is freed. On success it is freed too, unless the
     * backend has job_done: then the caller checks the proof and calls
     * reprove_cpu (a proof that failed the check) and/or job_done. */
    int (*prove_finish)(struct backend *be, const struct zkey *zk, void *job,
                        struct groth16_proof *out, struct stage_times *t,
                        struct sp_err *e);
    void (*job_done)(struct backend *be, void *job);
    int (*reprove_cpu)(struct backend *be, const struct zkey *zk, void *job,
                       struct groth16_proof *out, struct stage_times *t, struct sp_err *e);
    /* optional: forget what the backend holds for zk (before it is unmapped) */
    void (*key_drop)(struct backend *be, const struct zkey *zk);
    /* optional: the memory prove_input views will point into (the slot
     * pool's payload mapping), for the backend to register for fast copies */
    void (*host_memory)(struct backend *be, void *p, size_t len);
    /* optional: one line for `slotprove status` (device memory, resident keys) */
    int (*status)(struct backend *be, char *buf, size_t len);
    void (*close)(struct backend *be);
};

struct backend {
    const struct backend_ops *ops;
    unsigned nthreads;
    void *priv;
    stage_progress_fn progress; /* optional: called as each stage finishes */
    void *progress_arg;
    char description[200];      /* for the start-up line: "cuda: NVIDIA H200, …" */
};

/* Opens a backend by name: "cpu", "cuda" (-ENODEV naming the reason when
 * this gpud has no CUDA backend or no device is visible), or "auto" (CUDA
 * when built in and a device is present, with partitions the GPU cannot
 * take proved on the CPU; else CPU). -ENOENT for an unknown name. */
int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e);

/* 1 when this gpud was built with the CUDA backend. */
int backend_cuda_built(void);

extern const struct backend_ops cpu_backend_ops;
#ifdef SLOTPROVE_CUDA
extern const struct backend_ops cuda_backend_ops;
void cuda_backend_set_fallback(struct backend *be, int on);
/* 1 once the CUDA context is lost (a sticky error): gpud must exit. */
int cuda_backend_lost(void);
#endif

#endif
