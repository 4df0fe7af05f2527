/*
 * test_synth_plan.c — serve's default synthds and threads (run/synth_plan.h)
 * on host shapes worked out by hand from the rules in the header.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "synth_plan.h"

static struct synth_plan pick(struct synth_plan_in in)
{
    struct synth_plan p;
    if (!in.max_synthds)
        in.max_synthds = 64;
    synth_plan_pick(&in, &p);
    return p;
}

Test(synth_plan, gpu_hosts)
{
    /* H200 host: 16 CPUs, 1 GPU: 2 cores for gpud, 14 / 2 synthds */
    struct synth_plan p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .slots = 4 });
    cr_assert_eq(p.synthds, 2);
    cr_assert_eq(p.threads, 7);
    cr_assert(strstr(p.why, "2 cores kept for gpud"), "%s", p.why);
    cr_assert(strstr(p.why, "2 synthds x 7 threads"), "%s", p.why);
    /* 8 GPUs, 128 CPUs, 16 slots: 16 kept, 112 / 16 synthds */
    p = pick((struct synth_plan_in){ .cpus = 128, .gpuds = 8, .gpu = 1, .slots = 16 });
    cr_assert_eq(p.synthds, 16);
    cr_assert_eq(p.threads, 7);
    /* fewer slots than 2 per gpud: one synthd per slot */
    p = pick((struct synth_plan_in){ .cpus = 128, .gpuds = 8, .gpu = 1, .slots = 6 });
    cr_assert_eq(p.synthds, 6);
    cr_assert_eq(p.threads, 18);
    /* 2 CPUs and a GPU: one core kept, one synthd of one thread */
    p = pick((struct synth_plan_in){ .cpus = 2, .gpuds = 1, .gpu = 1, .slots = 4 });
    cr_assert_eq(p.synthds, 1);
    cr_assert_eq(p.threads, 1);
}

Test(synth_plan, cpu_backend)
{
    struct synth_plan p = pick((struct synth_plan_in){ .cpus = 2, .gpuds = 1, .slots = 4 });
    cr_assert_eq(p.synthds, 2);
    cr_assert_eq(p.threads, 1);
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .slots = 1 });
    cr_assert_eq(p.synthds, 1);
    cr_assert_eq(p.threads, 16);
}

Test(synth_plan, keys_and_overrides)
{
    /* a 2^12 key with 14000 entries: (14000 + 4096) / 2^17 = 0, at least 1 thread */
    struct synth_plan p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .slots = 4,
                                                       .key_rows = 4096, .key_coefs = 14000 });
    cr_assert_eq(p.threads, 1);
    cr_assert(strstr(p.why, "capped at 1 by the largest key"), "%s", p.why);
    /* the spare cores as more synthds: --slots 4 given, so 4 of them */
    cr_assert_eq(p.synthds, 4);
    cr_assert(strstr(p.why, "more synthds for the rest: 4 synthds x 1 thread"), "%s", p.why);
    /* without --slots (0): cores / cap = 14 synthds of one thread (the
     * SHA-256 2^15 key: 31k rows, ~150k entries: cap 1) */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1,
                                     .key_rows = 1u << 15, .key_coefs = 150000 });
    cr_assert_eq(p.synthds, 14);
    cr_assert_eq(p.threads, 1);
    /* cap 3 (2^18 rows, 150k entries: 412k / 131072): 14 / 3 = 4 synthds of 3 */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1,
                                     .key_rows = 1u << 18, .key_coefs = 150000 });
    cr_assert_eq(p.synthds, 4);
    cr_assert_eq(p.threads, 3);
    /* the CPU backend keeps its 2 synthds (the prover needs the cores) */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .key_rows = 4096, .key_coefs = 14000 });
    cr_assert_eq(p.synthds, 2);
    cr_assert_eq(p.threads, 1);
    /* --synth or --threads given: no spreading */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .synthds = 2,
                                     .key_rows = 4096, .key_coefs = 14000 });
    cr_assert_eq(p.synthds, 2);
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .threads_given = 1,
                                     .threads = 1, .key_rows = 4096, .key_coefs = 14000 });
    cr_assert_eq(p.synthds, 2);
    /* 2^20 rows, 3.3 M entries: 4.3 M / 131072 = 33 threads of use: not capped */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .slots = 4,
                                     .key_rows = 1u << 20, .key_coefs = 3300000 });
    cr_assert_eq(p.threads, 7);
    /* --synth 3: 14 / 3 */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .slots = 4, .synthds = 3 });
    cr_assert_eq(p.synthds, 3);
    cr_assert_eq(p.threads, 4);
    cr_assert(strstr(p.why, "(--synth)"), "%s", p.why);
    /* --threads 0 kept: all CPUs */
    p = pick((struct synth_plan_in){ .cpus = 16, .gpuds = 1, .gpu = 1, .slots = 4,
                                     .threads_given = 1, .threads = 0 });
    cr_assert_eq(p.synthds, 2);
    cr_assert_eq(p.threads, 0);
    cr_assert(strstr(p.why, "all CPUs"), "%s", p.why);
}

Test(synth_plan, gpu_from_backend_and_detected_gpus)
{
    /* auto with a GPU seen (visible, or --gpus), in a CUDA build: GPU gpuds,
     * also when --gpuds gave their count (bench-pipeline's --gpuds 1) */
    cr_assert_eq(synth_plan_gpu("auto", 1, 1), 1);
    cr_assert_eq(synth_plan_gpu("auto", 1, 8), 1);
    /* auto without a GPU, or in a build without CUDA: the CPU backend */
    cr_assert_eq(synth_plan_gpu("auto", 1, 0), 0);
    cr_assert_eq(synth_plan_gpu("auto", 0, 1), 0);
    /* --backend cuda: GPUs (gpud fails rather than fall back); cpu: never */
    cr_assert_eq(synth_plan_gpu("cuda", 1, 0), 1);
    cr_assert_eq(synth_plan_gpu("cpu", 1, 4), 0);
    /* the H200 host as bench-pipeline starts serve (--gpuds 1, GPU visible):
     * planned as a GPU host, 2 cores kept, not "1 CPU gpud" */
    struct synth_plan p = pick((struct synth_plan_in){
        .cpus = 16, .gpuds = 1, .gpu = synth_plan_gpu("auto", 1, 1), .slots = 4 });
    cr_assert(strstr(p.why, "1 GPU gpud"), "%s", p.why);
    cr_assert_eq(p.synthds, 2);
    cr_assert_eq(p.threads, 7);
}
