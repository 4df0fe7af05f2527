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
    int (*open)(struct backend *be, struct sp_err *e);
    int (*prove_start)(struct backend *be, const struct zkey *zk,
                       const struct prove_input *in, void **job, struct sp_err *e);
    int (*prove_finish)(struct backend *be, const struct zkey *zk, void *job,
                        struct groth16_proof *out, struct stage_times *t,
                        struct sp_err *e);
    void (*close)(struct backend *be);
};

struct backend {
    const struct backend_ops *ops;
    unsigned nthreads;
    void *priv;
    stage_progress_fn progress; /* optional: called as each stage finishes */
    void *progress_arg;
};

/* Opens a backend by name: "cpu", or "auto" (CUDA when built in and a device
 * is present, else CPU). -ENOENT with a message for an unknown name. */
int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e);

extern const struct backend_ops cpu_backend_ops;

#endif
