/* synth_plan.c — see synth_plan.h. */
#include "synth_plan.h"

#include <stdio.h>
#include <string.h>

#define CORES_PER_GPUD 2
#define ENTRIES_PER_THREAD (1u << 17)

static unsigned clamp(unsigned v, unsigned lo, unsigned hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void synth_plan_pick(const struct synth_plan_in *in, struct synth_plan *out)
{
    unsigned cpus = in->cpus ? in->cpus : 1, gpuds = in->gpuds ? in->gpuds : 1;
    unsigned slots = in->slots ? in->slots : 1, keep = 0, cores = cpus;
    if (in->gpu) {
        keep = CORES_PER_GPUD * gpuds < cpus ? CORES_PER_GPUD * gpuds : cpus - 1;
        cores = cpus - keep;
    }
    unsigned want = in->gpu ? 2 * gpuds : 2;
    unsigned most = in->slots && slots < in->max_synthds ? slots : in->max_synthds;
    if (in->gpu && cores < most)
        most = cores;
    out->synthds = in->synthds ? in->synthds : clamp(want, 1, most ? most : 1);
    unsigned per = cores / out->synthds, cap = 0, spread = 0;
    if (per == 0)
        per = 1;
    if (in->key_rows) {
        uint64_t c = (in->key_coefs + in->key_rows) / ENTRIES_PER_THREAD;
        cap = c < 1 ? 1 : c > 1024 ? 1024 : (unsigned)c;
        /* GPU host, keys too small for a synthd's share of the cores: the
         * spare cores go to more synthds (each runs one partition's witness
         * program, a single thread, at a time: with 2 synthds a small
         * circuit's input jobs ran at the pace of 2 programs) */
        if (per > cap && in->gpu && !in->synthds && !in->threads_given) {
            unsigned more = cores / cap;
            if (more > most)
                more = most;
            if (more > out->synthds) {
                out->synthds = more;
                spread = 1;
                per = cores / more;
            }
        }
        if (per > cap)
            per = cap;
    }
    out->threads = in->threads_given ? in->threads : per;
    int n = snprintf(out->why, sizeof(out->why), "%s: %u CPUs, %u %s gpud%s", 
                     in->synthds && in->threads_given ? "given" : "auto", cpus, gpuds,
                     in->gpu ? "GPU" : "CPU", gpuds > 1 ? "s" : "");
    if (n > 0 && (size_t)n < sizeof(out->why) && in->gpu)
        n += snprintf(out->why + n, sizeof(out->why) - (size_t)n, ", %u cores kept for gpud", keep);
    if (n > 0 && (size_t)n < sizeof(out->why) && cap && !in->threads_given && per == cap)
        n += snprintf(out->why + n, sizeof(out->why) - (size_t)n,
                      ", threads capped at %u by the largest key%s", cap,
                      spread ? ", more synthds for the rest" : "");
    if (n > 0 && (size_t)n < sizeof(out->why)) {
        if (out->threads)
            snprintf(out->why + n, sizeof(out->why) - (size_t)n, ": %u synthd%s x %u thread%s%s%s",
                     out->synthds, out->synthds > 1 ? "s" : "", out->threads,
                     out->threads > 1 ? "s" : "", in->synthds ? " (--synth)" : "",
                     in->threads_given ? " (--threads)" : "");
        else
            snprintf(out->why + n, sizeof(out->why) - (size_t)n, ": %u synthd%s x all CPUs%s",
                     out->synthds, out->synthds > 1 ? "s" : "", in->synthds ? " (--synth)" : "");
    }
}

int synth_plan_gpu(const char *backend, int cuda_built, unsigned gpus_seen)
{
    if (strcmp(backend, "cuda") == 0)
        return 1;
    return strcmp(backend, "auto") == 0 && cuda_built && gpus_seen > 0;
}
