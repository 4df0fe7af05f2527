/*
 * cuda_priv.h — the CUDA backend's state, shared by its files
 * (cuda_backend.c: the ops and the prove; cuda_keys.c: resident keys;
 * cuda_sets.c: device buffer sets; cuda_fallback.c: proving on the
 * fallback backend; cuda_lost.c: the sticky-error flag; cuda_budget.c:
 * how a key fits the device budget). Not for use
 * outside gpud/cuda/.
 */
#ifndef SLOTPROVE_CUDA_PRIV_H
#define SLOTPROVE_CUDA_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "zkey.h"

#define CUDA_MAX_KEYS 16
#define CUDA_SETS 2 /* device buffer sets: one per worker */

struct cuda_key {
    const struct zkey *zk; /* identity: the loaded key and its mapping */
    const uint8_t *map;
    char name[64];
    struct gpu_msm *g1, *g2;
    size_t bytes;
    uint64_t last_used;
    int busy;      /* a job between prove_start and prove_finish uses it */
    int too_large; /* proved on the CPU (auto) */
    int stream;    /* points streamed from host memory (cuda_budget.h) */
    size_t chunk;  /* the most points of one MSM part (0: no limit) */
    unsigned sets; /* buffer sets (workers) that fit beside it: 1 or 2 */
    int lean;      /* lean buffer sets (cuda_budget.h cuda_set_sizes) */
    int host_registered; /* zk->map page-locked for the streamed copies */
    size_t pin_charge;   /* that lock's ledger charge (gpu_mem_register) */
    int uploads_timed;   /* the first job's upload line was printed */
};

struct cuda_set {
    int in_use;
    int lean;         /* no scratch or LDE outputs: the LDEs in place */
    size_t cap_vec, cap_wit;
    void *a, *b, *c;  /* the inputs a, b, kept for a CPU re-prove (lean:
                         overwritten); c = a∘b, a lean set's only */
    void *s, *o1, *o2; /* scratch and the LDE outputs */
    void *w;          /* witness */
};

struct cuda_job {
    struct cuda_key *key;
    struct cuda_set *set;
    void *cpu_job;      /* set when the partition is proved on the CPU */
    int on_fallback;    /* it was: a re-prove has nothing other to try */
    uint8_t *witness;   /* host copy, for the G2 MSM on the CPU */
};

struct cuda_priv {
    pthread_mutex_t lock; /* keys, sets, tables */
    pthread_mutex_t gpu;  /* the kernel phase, key uploads and evictions */
    pthread_cond_t set_free;
    struct cuda_key keys[CUDA_MAX_KEYS];
    struct cuda_set sets[CUDA_SETS];
    struct gpu_ntt *ntt[2][2][ZKEY_MAX_LOG_DOMAIN + 1]; /* [lean: compact][curve][log n] */
    struct backend *fb;  /* be->fallback: re-proves, and what the GPU cannot prove */
    int fallback;        /* be->fallback_on_fault (auto): a GPU failure proves on fb */
    int g2_on_cpu;      /* $SLOTPROVE_G2=cpu: measured against the GPU */
    size_t budget;      /* device bytes gpud may use (gpu_mem.h's ledger) */
    size_t device_peak; /* the driver's use after a proof's kernels, highest */
    unsigned sets_max;  /* buffer sets in use: 1 when two do not fit the budget */
    uint64_t clock;
    void *registered; /* the page-locked slot pool, or NULL */
    size_t pool_pinned; /* its lock's ledger charge: in every key's plan */
    char desc[160];
};

#endif
