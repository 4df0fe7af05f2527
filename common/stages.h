/*
 * stages.h — per-stage wall-clock timings of one proof, in nanoseconds,
 * reported on stderr by `slotprove prove` and carried in result messages.
 */
#ifndef SLOTPROVE_STAGES_H
#define SLOTPROVE_STAGES_H

#include <stdint.h>
#include <time.h>

enum stage {
    STAGE_SYNTH,   /* synthd: witness read + a, b (sparse mat-vec) */
    STAGE_NTT,     /* gpud: c = a∘b, 3 × (iNTT, coset shift, NTT) and h */
    STAGE_MSM_A,
    STAGE_MSM_B1,
    STAGE_MSM_B2,  /* G2 */
    STAGE_MSM_C,
    STAGE_MSM_H,
    STAGE_PROVE,   /* gpud: whole proof, copy-off to assembled proof */
    STAGE_VERIFY,  /* gpud: the proof's pairing check (proof_self_check) */
    STAGE_COUNT
};

struct stage_times {
    uint64_t ns[STAGE_COUNT];
};

static inline const char *stage_name(enum stage s)
{
    static const char *const names[STAGE_COUNT] = {
        "synthesis", "ntt", "msm_a", "msm_b1", "msm_b2_g2", "msm_c", "msm_h", "prove",
        "verify",
    };
    return (unsigned)s < STAGE_COUNT ? names[s] : "?";
}

/* Called as each stage of a proof finishes (progress for long proofs). */
typedef void (*stage_progress_fn)(void *arg, enum stage s, uint64_t ns);

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
