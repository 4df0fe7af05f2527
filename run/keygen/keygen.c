/*
 * keygen.c — `slotprove keygen`: writes a synthetic circuit's Groth16
 * proving key (snarkjs .zkey), a satisfying witness (.wtns), vk.json and
 * public.json from an INSECURE single-party setup, for tests and
 * benchmarks at sizes snarkjs cannot set up.
 *
 * Before any work it checks the arguments, the output directory and its free
 * space (statvfs, against the exact sizes the files will have), then writes
 * every file as an unnamed temporary in DIR (O_TMPFILE; named ".NAME.tmp.PID"
 * temporaries where the filesystem has no O_TMPFILE) and links them into
 * place only when all four are complete and synced, so a failed or killed
 * run leaves no partial file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "keygen.h"
#include "keygen_bellperson.h"
#include "keygen_bls12381.h"
#include "keygen_bn254.h"
#include "keygen_circuit.h"
#include "keygen_out.h"
#include "keygen_gpu.h"
#include "keygen_porep.h"
#include "keygen_progress.h"
#include "keygen_types.h"
#include "random.h"
#include "binfile_write.h"
#include "wtns_write.h"
#include "zkey_write.h"

#define KEYGEN_FILES 4
static const char *const out_names[KEYGEN_FILES] = {
    "circuit.zkey", "circuit.wtns", "vk.json", "public.json",
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove keygen --curve bn128|bls12381 --constraints N [--public K]\n"
            "                        [--vars V] [--seed S] [--threads T]\n"
            "                        [--backend auto|cpu|cuda] [--format zkey|bellperson]\n"
            "                        [-q] --out DIR\n"
            "       slotprove keygen --format bellperson --shape porep [--scale S]\n"
            "                        [--domain-log2 D] [--seed S] [--threads T]\n"
            "                        [--backend auto|cpu|cuda] [-q] --out DIR\n"
            "\n"
            "INSECURE, FOR TESTING ONLY. Makes a test key from a single-party trusted setup:\n"
            "one process draws the secrets tau, alpha, beta, gamma and delta (from getrandom,\n"
            "or from --seed, when anyone can recompute them) and forgets them at the end.\n"
            "Whoever knows them can forge proofs. Never use these keys to protect anything.\n"
            "\n"
            "Writes to DIR (which must exist):\n"
            "  circuit.zkey  Groth16 proving key, snarkjs format (bn128 or bls12381)\n"
            "  circuit.wtns  a witness that satisfies the circuit\n"
            "  vk.json       verification key, byte for byte as `snarkjs zkey export\n"
            "                verificationkey` writes it\n"
            "  public.json   the witness's public signals\n"
            "\n"
            "The circuit is synthetic, with the mix of a real one: sparse A and B rows (1 to\n"
            "8 terms), N constraints of which about 11 in 16 make bits (bit checks, AND,\n"
            "XOR), 4 in 16 full-size field elements (products and sums with random\n"
            "coefficients), 1 in 16 a packed byte. So most witness values are 0 or 1 and\n"
            "many are full-size. nVars = 1 + K + N (or V); the domain is the smallest\n"
            "power of two >= N + K + 1.\n"
            "\n"
            "options:\n"
            "  --curve C           bn128 (BN254) or bls12381 (BLS12-381)\n"
            "  --constraints N     1 <= N, with N + K + 1 <= 2^%d (domain at most 2^%d:\n"
            "                      BN254's 2-adicity, and the zkey reader's cap)\n"
            "  --public K          public inputs, default 2\n"
            "  --vars V            nVars, wires in all (default 1 + K + N; at least\n"
            "                      1 + K + 16): the first V - 1 - K constraints make a\n"
            "                      wire each, the others check earlier wires against\n"
            "                      constants (same kinds). A large domain with a smaller\n"
            "                      key: A, B and C take one point per wire, H one per\n"
            "                      domain row\n"
            "  --seed S            0..2^64-1: the same S gives the same files (circuit,\n"
            "                      witness and secrets); default: a random circuit and\n"
            "                      secrets from getrandom\n"
            "  --out DIR           output directory; it needs the space the key takes\n"
            "                      (checked first: about 0.5 KiB per constraint on\n"
            "                      bn128, 0.7 KiB on bls12381; with --vars: 0.1 KiB\n"
            "                      per constraint, 64 / 96 bytes per domain row and\n"
            "                      0.3 / 0.5 KiB per wire)\n"
            "  --threads T         worker threads, 0..1024 (default 0: all CPUs)\n"
            "  --backend B         where the points are multiplied: auto (default: the\n"
            "                      GPU when this build has CUDA and one is visible,\n"
            "                      else the CPU), cpu, or cuda (refused without a GPU);\n"
            "                      the files are the same byte for byte either way\n"
            "  --gpu-mem SIZE      device memory the GPU's tables and batches may use\n"
            "                      (e.g. 16G; default: the free memory less a margin)\n"
            "  --format F          zkey (default) or bellperson: BLS12-381 only, the same\n"
            "                      setup also as circuit.params, circuit.vk (bellperson)\n"
            "                      and circuit.pce (cuzk's constraint file); --backend\n"
            "                      as for zkey (the point sections on the GPU)\n"
            "  --shape porep       with --format bellperson (no --curve, --constraints,\n"
            "                      --public, --vars): Filecoin PoRep's partition shape,\n"
            "                      written as circuit.params, circuit.vk, circuit.pce,\n"
            "                      circuit.wtns and public.json only (no zkey twin):\n"
            "                      130,278,869 constraints, 328 inputs, 130,169,893 aux,\n"
            "                      non-zeros A 309.4 M, B 130.3 M, C 282.7 M, 99.7 %% of\n"
            "                      aux in A, 33,112,281 in B, 99 %% of aux values bits;\n"
            "                      every section streamed (common/README-bellperson.md)\n"
            "  --scale S           0 < S <= 1 (default 1): aux wires, non-zeros and\n"
            "                      density columns x S; the domain and the constraint\n"
            "                      count stay (rows past S of them are empty), so the\n"
            "                      NTTs and h keep PoRep's size\n"
            "  --domain-log2 D     %u..%u (default %u): the domain 2^D, the constraints\n"
            "                      328 + 130,278,541 x 2^(D-27), the aux wires and\n"
            "                      non-zeros x S x 2^(D-27) (328 inputs at every D):\n"
            "                      PoRep's ratios at a test size\n"
            "  -q, --quiet         no progress on stderr (the INSECURE notice stays)\n"
            "  -h, --help          this text\n"
            "\n"
            "Exit status: 0 files written, 1 failure (directory, disk space, I/O; no file\n"
            "is left behind), 2 usage error (bad or missing argument).\n",
            KEYGEN_MAX_LOG_DOMAIN, KEYGEN_MAX_LOG_DOMAIN, POREP_MIN_LOG_DOMAIN, POREP_LOG_DOMAIN,
            POREP_LOG_DOMAIN);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void human(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= (1ull << 30))
        snprintf(buf, len, "%.2f GiB", (double)bytes / (1ull << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1ull << 20));
}

/* ---------------------------------------------------------------- command */

int cmd_keygen(int argc, char **argv)
{
    static const struct option opts[] = {
        { "curve", required_argument, NULL, 'c' },
        { "constraints", required_argument, NULL, 'n' },
        { "public", required_argument, NULL, 'k' },
        { "vars", required_argument, NULL, 'v' },
        { "backend", required_argument, NULL, 'b' },
        { "gpu-mem", required_argument, NULL, 'U' },
        { "seed", required_argument, NULL, 's' },
        { "out", required_argument, NULL, 'o' },
        { "threads", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "shape", required_argument, NULL, 'S' },
        { "scale", required_argument, NULL, 'x' },
        { "domain-log2", required_argument, NULL, 'D' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *curve_name = NULL, *n_arg = NULL, *dir = NULL, *v_arg = NULL;
    const char *backend = "auto";
    uint64_t gpu_mem = 0;
    unsigned n_public = 2, nthreads = 0;
    uint64_t seed = 0;
    int seeded = 0, c, bellperson = 0, porep = 0, k_given = 0;
    double scale = 1.0;
    unsigned log_domain = POREP_LOG_DOMAIN;
    const char *scale_arg = NULL, *dlog_arg = NULL;
    struct keygen_progress prog = { 0 };
    struct sp_err e = { { 0 } };

    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': curve_name = optarg; break;
        case 'U':
            if (!(gpu_mem = parse_size(optarg))) {
                fprintf(stderr, "slotprove keygen: --gpu-mem \"%s\": want SIZE (e.g. 16G)\n", optarg);
                return 2;
            }
            break;
        case 'n': n_arg = optarg; break;
        case 'v': v_arg = optarg; break;
        case 'b':
            backend = optarg;
            if (!backend_name_ok(backend)) {
                fprintf(stderr, "slotprove keygen: --backend \"%s\": want auto, cpu or cuda\n",
                        backend);
                return 2;
            }
            break;
        case 'S':
            if (strcmp(optarg, "porep") != 0) {
                fprintf(stderr, "slotprove keygen: --shape \"%s\": want porep\n", optarg);
                return 2;
            }
            porep = 1;
            break;
        case 'x': {
            char *end;
            errno = 0;
            scale = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(scale > 0 && scale <= 1)) {
                fprintf(stderr, "slotprove keygen: --scale \"%s\": want a number with "
                                "0 < S <= 1\n", optarg);
                return 2;
            }
            scale_arg = optarg;
            break;
        }
        case 'D':
            if (parse_count(optarg, POREP_MIN_LOG_DOMAIN, POREP_LOG_DOMAIN, &log_domain) < 0) {
                fprintf(stderr, "slotprove keygen: --domain-log2 \"%s\": want %u..%u\n", optarg,
                        POREP_MIN_LOG_DOMAIN, POREP_LOG_DOMAIN);
                return 2;
            }
            dlog_arg = optarg;
            break;
        case 'k':
            k_given = 1;
            if (parse_count(optarg, 0, 1ul << KEYGEN_MAX_LOG_DOMAIN, &n_public) < 0) {
                fprintf(stderr, "slotprove keygen: --public \"%s\": want an integer 0..2^%d\n",
                        optarg, KEYGEN_MAX_LOG_DOMAIN);
                return 2;
            }
            break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || errno || *end) {
                fprintf(stderr, "slotprove keygen: --seed \"%s\": want an integer 0..2^64-1\n",
                        optarg);
                return 2;
            }
            seed = v;
            seeded = 1;
            break;
        }
        case 'o': dir = optarg; break;
        case 'f':
            if (strcmp(optarg, "bellperson") != 0 && strcmp(optarg, "zkey") != 0) {
                fprintf(stderr, "slotprove keygen: --format \"%s\": want zkey or bellperson\n",
                        optarg);
                return 2;
            }
            bellperson = optarg[0] == 'b';
            break;
        case 't':
            if (parse_count(optarg, 0, 1024, &nthreads) < 0) {
                fprintf(stderr, "slotprove keygen: --threads \"%s\": want 0..1024\n", optarg);
                return 2;
            }
            break;
        case 'q': prog.quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slotprove keygen: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if ((scale_arg || dlog_arg) && !porep) {
        fprintf(stderr, "slotprove keygen: --scale and --domain-log2 go with --shape porep\n");
        return 2;
    }
    if (porep) { /* keygen_porep.c */
        if (!bellperson || (curve_name && strcmp(curve_name, "bls12381") != 0) || n_arg ||
            v_arg || k_given || !dir) {
            fprintf(stderr, "slotprove keygen: --shape porep: want --format bellperson and --out "
                            "DIR (the curve is bls12381; the shape sets the constraints, inputs "
                            "and wires: no --constraints, --public or --vars)\n");
            return 2;
        }
        struct porep_plan pp;
        if (porep_plan(&pp, scale, log_domain, &e) < 0) {
            fprintf(stderr, "slotprove keygen: %s\n", e.msg);
            return 2;
        }
        struct keygen_job pj = { .curve = CURVE_BLS12381, .seed = seed, .seeded = seeded,
                                 .nthreads = nthreads, .progress = &prog,
                                 .zkey_fd = -1, .wtns_fd = -1 };
        if (!seeded) {
            uint64_t r[4];
            int rc = random_below(r, (const uint64_t[4]){ 0, 0, 0, 1 });
            if (rc < 0) {
                fprintf(stderr, "slotprove keygen: getrandom: %s\n", strerror(-rc));
                return 1;
            }
            pj.seed = r[0];
        }
        if (strcmp(backend, "cpu") != 0) {
            struct sp_err ge = { { 0 } };
            char gd[160] = "";
            if (keygen_gpu_budget(gpu_mem, &ge) == 0 && keygen_gpu_probe(gd, sizeof(gd), &ge) == 0)
                pj.gpu = strcmp(backend, "cuda") == 0 ? KEYGEN_GPU_REQUIRED : KEYGEN_GPU_AUTO;
            else if (strcmp(backend, "cuda") == 0) {
                fprintf(stderr, "slotprove keygen: --backend cuda: %s\n", ge.msg);
                return 1;
            }
            if (!prog.quiet)
                fprintf(stderr, "slotprove keygen: points on the %s%s\n",
                        pj.gpu ? "GPU: " : "CPU", gd);
        }
        return keygen_porep_cmd(&pj, &pp, dir);
    }
    if (!curve_name || !n_arg || !dir) {
        fprintf(stderr, "slotprove keygen: --curve, --constraints and --out are required\n\n");
        usage(stderr);
        return 2;
    }
    enum curve_id curve;
    if (strcmp(curve_name, "bn128") == 0)
        curve = CURVE_BN254;
    else if (strcmp(curve_name, "bls12381") == 0)
        curve = CURVE_BLS12381;
    else {
        fprintf(stderr, "slotprove keygen: --curve \"%s\": want bn128 or bls12381\n", curve_name);
        return 2;
    }
    unsigned n;
    if (parse_count(n_arg, 0, 0xffffffffUL, &n) < 0) {
        fprintf(stderr, "slotprove keygen: --constraints \"%s\": want an integer 1..2^%d-%u\n",
                n_arg, KEYGEN_MAX_LOG_DOMAIN, n_public + 1);
        return 2;
    }
    struct keygen_job j = { .curve = curve, .seed = seed, .seeded = seeded,
                            .nthreads = nthreads, .progress = &prog,
                            .zkey_fd = -1, .wtns_fd = -1 };
    if (keygen_shape(&j.shape, n, n_public, &e) < 0) {
        fprintf(stderr, "slotprove keygen: %s\n", e.msg);
        return 2;
    }
    if (v_arg) {
        unsigned v;
        if (parse_count(v_arg, 0, 0xffffffffUL, &v) < 0) {
            fprintf(stderr, "slotprove keygen: --vars \"%s\": want an integer\n", v_arg);
            return 2;
        }
        if (keygen_shape_vars(&j.shape, v, &e) < 0) {
            fprintf(stderr, "slotprove keygen: %s\n", e.msg);
            return 2;
        }
    }
    const struct keygen_shape *s = &j.shape;
    if (!seeded) { /* a fresh circuit too; the secrets come from getrandom anyway */
        uint64_t r[4];
        int rc = random_below(r, (const uint64_t[4]){ 0, 0, 0, 1 }); /* < 2^192: r[0..2] uniform */
        if (rc < 0) {
            fprintf(stderr, "slotprove keygen: getrandom: %s\n", strerror(-rc));
            return 1;
        }
        j.seed = r[0];
    }

    /* The GPU, when asked for or available. */
    char gpu_desc[160] = "";
    if (strcmp(backend, "cpu") != 0) {
        struct sp_err ge = { { 0 } };
        if (keygen_gpu_budget(gpu_mem, &ge) == 0 &&
            keygen_gpu_probe(gpu_desc, sizeof(gpu_desc), &ge) == 0) {
            j.gpu = strcmp(backend, "cuda") == 0 ? KEYGEN_GPU_REQUIRED : KEYGEN_GPU_AUTO;
        } else if (strcmp(backend, "cuda") == 0) {
            fprintf(stderr, "slotprove keygen: --backend cuda: %s\n", ge.msg);
            return 1;
        }
    }

    if (bellperson) { /* keygen_bellperson.c */
        if (!prog.quiet)
            fprintf(stderr, "slotprove keygen: points on the %s%s\n", j.gpu ? "GPU: " : "CPU",
                    gpu_desc);
        return keygen_bellperson_cmd(&j, dir, curve);
    }

    /* The directory and its free space, before any work. */
    struct stat st;
    if (stat(dir, &st) < 0) {
        fprintf(stderr, "slotprove keygen: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "slotprove keygen: %s: not a directory\n", dir);
        return 1;
    }
    struct zkey_layout l;
    zkey_layout(&l, curve, s->n_vars, s->n_public, s->domain_size, s->n_coefs);
    uint64_t wtns_bytes = wtns_file_bytes(s->n_vars);
    /* vk.json: about 200 bytes per IC point; public.json: 84 per value */
    uint64_t text_bytes = 4096 + 200 * ((uint64_t)s->n_public + 1) + 84 * (uint64_t)s->n_public;
    uint64_t need = l.file_size + wtns_bytes + text_bytes;
    struct statvfs vfs;
    if (statvfs(dir, &vfs) < 0) {
        fprintf(stderr, "slotprove keygen: %s: statvfs: %s\n", dir, strerror(errno));
        return 1;
    }
    uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    char hn[32], ha[32], hz[32], hw[32];
    human(hn, sizeof(hn), need);
    human(ha, sizeof(ha), avail);
    human(hz, sizeof(hz), l.file_size);
    human(hw, sizeof(hw), wtns_bytes);
    if (avail < need) {
        fprintf(stderr,
                "slotprove keygen: %s: not enough free space: the files need %" PRIu64
                " bytes (%s: key %s, witness %s), only %" PRIu64 " bytes (%s) are free\n",
                dir, need, hn, hz, hw, avail, ha);
        return 1;
    }

    struct out_file f[KEYGEN_FILES];
    for (unsigned i = 0; i < KEYGEN_FILES; i++)
        f[i].fd = -1, f[i].named = 0;
    int rc = 0;
    for (unsigned i = 0; i < KEYGEN_FILES && rc == 0; i++)
        rc = out_open(&f[i], dir, out_names[i], &e);
    if (rc == 0)
        rc = out_reserve(&f[0], l.file_size, &e);
    if (rc == 0)
        rc = out_reserve(&f[1], wtns_bytes, &e);
    if (rc < 0) {
        fprintf(stderr, "slotprove keygen: %s\n", e.msg);
        out_close(f, KEYGEN_FILES);
        return 1;
    }

    fprintf(stderr,
            "slotprove keygen: INSECURE, FOR TESTING ONLY: a single-party setup whose secrets "
            "%s\n",
            seeded ? "follow from --seed (anyone can recompute them)"
                   : "came from getrandom and are discarded at the end");
    if (!prog.quiet)
        fprintf(stderr,
                "slotprove keygen: %s, %u constraints, %u public, nVars %u, domain 2^%u; "
                "%s to %s\n",
                curve_name, s->n_constraints, s->n_public, s->n_vars, s->log_domain, hn, dir);
    if (!prog.quiet)
        fprintf(stderr, "slotprove keygen: points on the %s%s\n", j.gpu ? "GPU: " : "CPU",
                gpu_desc);
    prog.tty = isatty(2);
    j.zkey_fd = f[0].fd;
    j.wtns_fd = f[1].fd;
    j.zkey_path = f[0].path;
    j.wtns_path = f[1].path;
    double t0 = now_s();
    rc = curve == CURVE_BN254 ? keygen_bn254(&j, &e) : keygen_bls12381(&j, &e);
    if (rc == 0)
        rc = out_text(&f[2], j.vk_json, &e);
    if (rc == 0)
        rc = out_text(&f[3], j.public_json, &e);
    if (rc == 0)
        rc = out_commit(f, KEYGEN_FILES, dir, &e);
    out_close(f, KEYGEN_FILES);
    free(j.vk_json);
    free(j.public_json);
    if (rc < 0) {
        fprintf(stderr, "slotprove keygen: %s\n", e.msg);
        return 1;
    }
    if (!prog.quiet) {
        fprintf(stderr, "  %-24s %9.3f s\n", "total", now_s() - t0);
        fprintf(stderr, "slotprove keygen: wrote %s/{circuit.zkey,circuit.wtns,vk.json,public.json}"
                        " (INSECURE, FOR TESTING ONLY)\n", dir);
    }
    return 0;
}
