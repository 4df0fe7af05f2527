/*
 * prove_opts.c — the option parser and help lines `prove` and `fullprove`
 * share (prove_opts.h).
 */
#include <getopt.h>
#include <string.h>

#include "args.h"
#include "prove_opts.h"

void prove_opts_help(FILE *f, int witness)
{
    fprintf(f,
            "  --backend auto|cpu|cuda  prover backend for gpud (default auto: CUDA on the\n"
            "                           first visible GPU where this build has it, else the\n"
            "                           CPU; cuda fails when no GPU can be used)\n"
            "  --gpu-mem SIZE           device memory gpud may use (e.g. 16G; default: the\n"
            "                           GPU's free memory less 1 GiB and 1/32 of the device);\n"
            "                           a key that does not fit streams its points from host\n"
            "                           memory; too small for one worker: refused\n"
            "  --threads N              worker threads per process, 0..1024 (default 0: all CPUs)\n"
            "  -q, --quiet              no progress or timings on stderr\n"
            "  --no-verify              skip the pairing check of the proof before it is\n"
            "                           written (for measuring raw proving speed only: an\n"
            "                           invalid proof is then written with exit 0)\n");
    if (witness)
        fprintf(f,
                "  --witness-mem SIZE       memory limit of the witness program (K/M/G suffixes;\n"
                "                           default 8G): address space for a native program,\n"
                "                           data segment for node\n"
                "  --witness-cpu S          its CPU time limit in seconds (default %u)\n"
                "  --witness-time S         its wall-clock limit in seconds (default %u)\n",
                PROVE_OPTS_WITNESS_CPU_DEFAULT, PROVE_OPTS_WITNESS_WALL_DEFAULT);
    fprintf(f, "  -h, --help               this text\n");
}

int prove_opts_parse(const char *cmd, int argc, char **argv, int witness, int n_pos,
                     const char *pos_names, void (*usage)(FILE *), struct prove_opts *o,
                     int *first)
{
    static const struct option all[] = {
        { "backend", required_argument, NULL, 'b' },
        { "gpu-mem", required_argument, NULL, 'U' },
        { "threads", required_argument, NULL, 't' },
        { "quiet", no_argument, NULL, 'q' },
        { "no-verify", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { "witness-mem", required_argument, NULL, 'm' },
        { "witness-cpu", required_argument, NULL, 'c' },
        { "witness-time", required_argument, NULL, 'w' },
        { 0, 0, 0, 0 },
    };
    static struct option shared[sizeof(all) / sizeof(all[0])];
    /* prove takes the first six, fullprove all nine */
    size_t n = witness ? sizeof(all) / sizeof(all[0]) - 1 : 6;
    memcpy(shared, all, n * sizeof(all[0]));
    memset(&shared[n], 0, sizeof(shared[0]));
    char who[32];
    snprintf(who, sizeof(who), "slotprove %s", cmd);
    *o = (struct prove_opts){ .backend = "auto", .witness = witness,
                              .witness_mem = PROVE_OPTS_WITNESS_MEM_DEFAULT,
                              .witness_cpu_s = PROVE_OPTS_WITNESS_CPU_DEFAULT,
                              .witness_wall_s = PROVE_OPTS_WITNESS_WALL_DEFAULT };
    int c;
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "qh", shared, NULL)) != -1) {
        switch (c) {
        case 'b':
            o->backend = optarg;
            if (backend_arg_check(who, optarg))
                return 2;
            break;
        case 'U':
            if (!(o->gpu_mem = parse_size(optarg))) {
                fprintf(stderr, "%s: --gpu-mem %s: want SIZE (e.g. 16G)\n", who, optarg);
                return 2;
            }
            break;
        case 't':
            if (parse_count(optarg, 0, 1024, &o->threads) < 0) {
                fprintf(stderr, "%s: --threads %s: expected 0..1024 (0 = all CPUs)\n", who, optarg);
                return 2;
            }
            break;
        case 'm':
            if (!(o->witness_mem = parse_size(optarg))) {
                fprintf(stderr, "%s: --witness-mem %s: expected a size such as 4G\n", who, optarg);
                return 2;
            }
            break;
        case 'c':
        case 'w':
            if (parse_count(optarg, 1, 30 * 86400,
                            c == 'c' ? &o->witness_cpu_s : &o->witness_wall_s) < 0) {
                fprintf(stderr, "%s: --witness-%s %s: expected 1..2592000 seconds\n", who,
                        c == 'c' ? "cpu" : "time", optarg);
                return 2;
            }
            break;
        case 'q': o->quiet = 1; break;
        case 'V': o->no_verify = 1; break; /* passed to gpud as --no-verify 1 */
        case 'h': usage(stdout); return 0;
        default: /* getopt named the option */
            fprintf(stderr, "%s: see `%s --help`\n", who, who);
            return 2;
        }
    }
    if (argc - optind != n_pos) {
        fprintf(stderr, "%s: expected %d arguments, %s; got %d%s (`%s --help` lists the options)\n",
                who, n_pos, pos_names, argc - optind,
                argc - optind > n_pos ? ": an option's value missing its flag?" : "", who);
        return 2;
    }
    *first = optind;
    return -1;
}
