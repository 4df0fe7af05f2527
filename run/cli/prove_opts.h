/*
 * prove_opts.h — the options `slotprove prove` and `slotprove fullprove`
 * share, parsed and described in one place so that the two commands cannot
 * drift: --backend, --gpu-mem, --threads, -q/--quiet, --no-verify, -h, and
 * (fullprove only) the witness program's --witness-mem, --witness-cpu,
 * --witness-time. A wrong number of positional arguments is one line naming
 * what was expected and what came, never the whole help.
 */
#ifndef SLOTPROVE_PROVE_OPTS_H
#define SLOTPROVE_PROVE_OPTS_H

#include <stdint.h>
#include <stdio.h>

/* synthd/witness_program.h's defaults, repeated for the help text */
#define PROVE_OPTS_WITNESS_MEM_DEFAULT (8ull << 30) /* bytes */
#define PROVE_OPTS_WITNESS_CPU_DEFAULT 3600u        /* CPU seconds */
#define PROVE_OPTS_WITNESS_WALL_DEFAULT 3600u       /* seconds */

struct prove_opts {
    const char *backend;      /* "auto" (default), "cpu" or "cuda" */
    uint64_t gpu_mem;         /* bytes; 0: gpud's default budget */
    unsigned threads;         /* 0..1024, 0: all CPUs */
    int quiet, no_verify;
    int witness;              /* the --witness-* options are taken (fullprove) */
    uint64_t witness_mem;     /* bytes */
    unsigned witness_cpu_s, witness_wall_s;
};

/* Parses argv[1..] of command cmd ("prove" or "fullprove"; witness != 0
 * takes the --witness-* options too) into o, defaults first. usage prints
 * the command's whole help. Returns -1 to go on, with *first the index of
 * the first of the n_pos positional arguments (named by pos_names, e.g.
 * "CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json"); or the exit code:
 * 0 after --help, 2 after a usage error (its one-line reason on stderr). */
int prove_opts_parse(const char *cmd, int argc, char **argv, int witness, int n_pos,
                     const char *pos_names, void (*usage)(FILE *), struct prove_opts *o,
                     int *first);

/* The shared options' lines of the help text (witness != 0: the witness
 * program's too), for both commands' usage(). */
void prove_opts_help(FILE *f, int witness);

#endif
