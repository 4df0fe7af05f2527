/*
 * synth_plan.h — how many synthds `serve` starts and how many threads each
 * gets, when --synth / --threads do not say (shown in status as "synthesis").
 *
 * With a GPU the pipeline should run at the GPU's pace: synthesis must keep
 * up, and the host's cores are synthesis's but for a few gpud needs (proof
 * assembly, the pairing check, the next slot's copies): 2 cores per gpud
 * are kept for it, the rest split evenly among 2 synthds per gpud (two
 * partitions filling while the GPU proves a third), never more synthds than
 * slots. With the CPU backend the prover is the CPU: 2 synthds (at most one
 * per slot) share all the cores with gpud, half each. In both cases a
 * synthd gets no more threads than the largest preloaded key can use (one
 * per 2^17 of its entries + rows: below that the work of a partition is a
 * few milliseconds); on a GPU host the cores that cap leaves idle go to
 * more synthds (cores / cap, at most one per given slot; without --slots
 * the default slot count follows the synthds, sizing.h), since a synthd
 * runs an input job's witness program, one thread, before its sums: with
 * small circuits the programs, not the sums, are synthesis's work. gpud's threads are not planned here (--threads, else
 * all CPUs).
 */
#ifndef SLOTPROVE_RUN_SYNTH_PLAN_H
#define SLOTPROVE_RUN_SYNTH_PLAN_H

#include <stdint.h>

struct synth_plan_in {
    unsigned cpus;          /* online CPUs */
    unsigned gpuds;         /* gpud processes */
    int gpu;                /* 1: they prove on GPUs; 0: the CPU backend */
    unsigned slots;         /* --slots; 0: not given (the slots follow the synthds) */
    uint64_t key_rows;      /* largest preloaded key: domain rows, 0 if none */
    uint64_t key_coefs;     /* its coefficient entries */
    unsigned synthds;       /* --synth, 0 when not given */
    int threads_given;      /* --threads given: threads (0 = all CPUs) is kept */
    unsigned threads;
    unsigned max_synthds;
};

struct synth_plan {
    unsigned synthds;
    unsigned threads;       /* per synthd, 0 = all CPUs (only when --threads 0) */
    char why[200];          /* "auto: 16 CPUs, 1 GPU gpud: ..." */
};

void synth_plan_pick(const struct synth_plan_in *in, struct synth_plan *out);

/* Whether serve's gpuds prove on GPUs (synth_plan_in.gpu), as gpud's
 * backend_open decides (gpud/select.c): backend "cpu": no; "cuda": yes;
 * "auto": when this build has CUDA (cuda_built) and at least one GPU is
 * listed by --gpus or visible (gpus_seen, gpus.h: CUDA_VISIBLE_DEVICES, else
 * /proc/driver/nvidia/gpus), whether or not --gpuds gave the gpud count. */
int synth_plan_gpu(const char *backend, int cuda_built, unsigned gpus_seen);

#endif
