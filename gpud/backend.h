/*
 * backend.h — the prover backend interface of gpud.
 *
 * A backend turns one slot's vectors into a Groth16 proof. The work is split
 * in two so a slot can be released as early as possible:
 *   prove_start   takes what it needs off the slot (the CPU backend copies it
 *                 into its own buffers; the CUDA backend will upload it) —
 *                 after it returns, the caller releases the slot;
 *   prove_finish  does the rest and assembles the proof.
 * Each backend proves every key format (snarkjs zkey, bellperson .params +
 * PCE) through its own row of backend_ops.format, one pair of files per
 * format (gpud/README.md). The CPU backend is a real, multi-threaded
 * backend: the one CI tests and the correctness oracle for the CUDA one. This header names no backend: each
 * implementation exports its ops (gpud/cpu/cpu_backend.h,
 * gpud/cuda/cuda_backend.h) and gpud/select.c chooses among them.
 */
#ifndef SLOTPROVE_BACKEND_H
#define SLOTPROVE_BACKEND_H

#include <stdint.h>

#include "child_keys.h"
#include "ctl.h"
#include "err.h"
#include "proof.h"
#include "stages.h"

/* Read-only views into a READY slot's payload (layout: shm/payload.h). */
struct prove_input {
    const uint8_t *a, *b;     /* domain_size × 32 B each, Fr in the slot's form:
                                 standard form (shm/payload.h); each backend
                                 forms c = a∘b (a·b·R^-1) itself */
    const uint8_t *witness;   /* n_vars × 32 B, Fr standard form */
};

struct backend;

/* One key format on one backend (a row of backend_ops.format; gpud/README.md
 * "Adding a key format"). k is the loaded key (shm/child_keys.h): its
 * shape in k->shape, the format's own parts beside it (a zkey's mapping in
 * k->zk), and k->prover_key, what gpud decoded for it (gpud/key_format.h). */
struct backend_format {
    /* takes what the proof needs off the slot (in); after it returns the
     * caller releases the slot. *job is the backend's. */
    int (*prove_start)(struct backend *be, const struct child_key *k,
                       const struct prove_input *in, void **job, struct sp_err *e);
    /* On failure the job is freed. On success it is freed too, unless the
     * format has job_done: then the caller checks the proof and calls
     * reprove (a proof that failed the check) and/or job_done. */
    int (*prove_finish)(struct backend *be, const struct child_key *k, void *job,
                        struct groth16_proof *out, struct stage_times *t, struct sp_err *e);
    void (*job_done)(struct backend *be, void *job);
    /* optional: the job's proof failed the caller's check; prove it once
     * more by an independent path (the CUDA backend: on be->fallback, from
     * the inputs it kept) so a device fault is told from a bad witness.
     * 0 and a new proof (to be checked), 1 when the job was proved on that
     * path already (the check's verdict stands), or an error. */
    int (*reprove)(struct backend *be, const struct child_key *k, void *job,
                   struct groth16_proof *out, struct stage_times *t, struct sp_err *e);
    /* optional: whether k can be proved within the backend's device memory
     * budget (be->device_mem), checked when gpud loads the key: an error
     * naming the budget and the figure needed makes the load fail */
    int (*key_check)(struct backend *be, const struct child_key *k, struct sp_err *e);
    /* optional: forget what the backend holds for k (before it is unmapped) */
    void (*key_drop)(struct backend *be, const struct child_key *k);
};

struct backend_ops {
    const char *name;
    unsigned workers; /* proofs gpud runs at once on this backend (0: 1) */
    /* How many of them may run now (1..workers), or NULL: workers. The CUDA
     * backend says 1 while its device budget holds one worker's buffers
     * (cuda_sets.h), so a second worker takes no partition (and no slot)
     * it could not start. */
    unsigned (*workers_now)(struct backend *be);
    /* 1: this backend's failures are its device's, never the input's: gpud
     * reports them as -SP_EDEVICE (the partition is proved again); 0: they
     * are reported as they are */
    int device_errors;
    int (*open)(struct backend *be, struct sp_err *e);
    /* the key formats it proves, by enum ctl_key_kind (NULL: not this one) */
    const struct backend_format *format[CTL_KEY_KINDS];
    /* optional: 1 once the backend can prove nothing more (a GPU's lost
     * context, a sticky error): gpud exits so a fresh process takes over */
    int (*lost)(struct backend *be);
    /* optional: the memory prove_input views will point into (the slot
     * pool's payload mapping), for the backend to register for fast copies */
    void (*host_memory)(struct backend *be, void *p, size_t len);
    /* optional: one line for `slotprove status` (device memory, resident keys) */
    int (*status)(struct backend *be, char *buf, size_t len);
    /* optional: device memory in bytes: the budget the backend keeps within
     * and what it holds now (for status and the metrics; a backend without
     * device memory has none) */
    void (*device_memory)(struct backend *be, uint64_t *budget, uint64_t *held);
    void (*close)(struct backend *be);
};

struct backend {
    const struct backend_ops *ops;
    unsigned nthreads;
    void *priv;
    stage_progress_fn progress; /* optional: called as each stage finishes */
    void *progress_arg;
    /* optional, set before open by whoever chooses the backends
     * (gpud/select.c), and owned by it: a second, open backend this one
     * proves on where it cannot itself. A proof that failed the caller's
     * check is proved again there (ops->reprove); with fallback_on_fault
     * ("auto") also a partition whose key does not fit the device or whose
     * device work failed. */
    struct backend *fallback;
    int fallback_on_fault;
    /* set by backend_open from backend_set_device_mem (gpud's --gpu-mem):
     * bytes of device memory a device backend may use; 0: its default */
    size_t device_mem;
    /* gpuds sharing the device (gpud's --gpu-share, from serve; ≥ 1): the
     * default budget (device_mem 0) is the device's free memory less the
     * margin, divided by this */
    unsigned device_share;
    char description[200];      /* for the start-up line: "cuda: NVIDIA H200, …" */
};

/* k's row on be: set for every kind child_key_load accepts and the backend
 * proves (gpud refuses a key whose row is NULL at KEY_LOAD). */
static inline const struct backend_format *backend_format(const struct backend *be,
                                                          const struct child_key *k)
{
    return k->kind < CTL_KEY_KINDS ? be->ops->format[k->kind] : NULL;
}

#endif
