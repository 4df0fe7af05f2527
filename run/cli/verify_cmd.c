/*
 * verify_cmd.c — `slotprove verify VK.json PUBLIC.json PROOF.json`: a
 * drop-in for `snarkjs groth16 verify` (same files, same argument order).
 *
 * Prints "OK" on stdout and exits 0 when the proof verifies; otherwise
 * prints "slotprove verify: INVALID: FILE: reason" on stderr and exits 1
 * (also for unreadable or malformed files, naming the file); 2 for usage.
 * Beyond snarkjs's pairing equation it checks that every coordinate is
 * below q, the proof's and the key's points lie on their curves and in the
 * prime-order subgroups (a key's failure names VK.json), no proof point and
 * none of the key's alpha, beta, gamma, delta is the point at infinity, the
 * public signals are below r and as many as the key's nPublic, and the
 * proof is for the key's curve. A multi-partition job's proof and public
 * files (arrays of them) are checked partition by partition
 * (verify_parts.h): "OK: k partitions". A .zkey given as the verification
 * key is named as one, with snarkjs's command to export the key.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "prove_bellperson.h"
#include "groth16.h"
#include "groth16_json.h"
#include "commands.h"
#include "stages.h"
#include "verify_parts.h"

/* 1 if path starts with a .zkey's magic "zkey" (snarkjs's binary key). */
static int file_is_zkey(const char *path)
{
    char magic[4];
    FILE *f = fopen(path, "rb");
    int is = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "zkey", 4) == 0;
    if (f)
        fclose(f);
    return is;
}

/* This thread's CPU time in ns (excludes time the scheduler gave others). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median of n values (sorts v). */
static uint64_t median_ns(uint64_t *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove verify [options] VERIFICATION_KEY.json PUBLIC.json PROOF.json\n"
            "       slotprove verify --bellperson [-q] VK PUBLIC.json[,PUBLIC.json...] PROOF\n"
            "                       (bellperson .vk or .params, 192-byte proofs)\n"
            "\n"
            "Verifies a snarkjs Groth16 proof (bn128 or bls12381), like `snarkjs groth16\n"
            "verify`, with slotprove's own pairing. Also rejects coordinates not below q,\n"
            "points (of the proof or the key) off their curve or outside the prime-order\n"
            "subgroups, proof points at infinity, public signals not below r or of the\n"
            "wrong number, and a proof for another curve. One proof per file: a\n"
            "multi-partition job's files (arrays) are refused saying so.\n"
            "\n"
            "options:\n"
            "  -q, --quiet   no OK or reason printed; the exit status tells\n"
            "  -t, --time    print the verification time (ms) on stderr\n"
            "  -n, --repeat N  verify N times (1..100000) and print the median time per\n"
            "                proof, wall clock and this thread's CPU time (benchmarks)\n"
            "  -h, --help    this text\n"
            "\n"
            "Exit status: 0 the proof verifies (prints OK), 1 it does not or an input is\n"
            "unreadable or malformed (the message names the file and the reason), 2 usage.\n");
}

int cmd_verify(int argc, char **argv)
{
    if (bellperson_wanted(argc, argv, "--bellperson")) /* prove_bellperson.c */
        return cmd_verify_bellperson(argc, argv);
    static const struct option opts[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "time", no_argument, NULL, 't' },
        { "repeat", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    int quiet = 0, timing = 0, c;
    unsigned repeat = 1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qtn:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (parse_count(optarg, 1, 100000, &repeat) < 0) {
                fprintf(stderr, "slotprove verify: --repeat %s: expected 1..100000\n", optarg);
                return 2;
            }
            timing = 1;
            break;
        case 'q': quiet = 1; break;
        case 't': timing = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 3) {
        usage(stderr);
        return 2;
    }
    const char *vk_path = argv[optind], *pub_path = argv[optind + 1];
    const char *proof_path = argv[optind + 2];
    struct sp_err e = { "" };
    struct groth16_vk vk;
    struct groth16_proof p;
    uint8_t *pub = NULL;
    uint32_t n_pub = 0;
    int rc;
    char why[SP_ERR_MSG + 64] = "";

    memset(&vk, 0, sizeof(vk));
    if ((rc = groth16_vk_read_json(&vk, vk_path, &e)) < 0) {
        if (file_is_zkey(vk_path))
            snprintf(why, sizeof(why), "%s: a .zkey (a proving key), not a verification key: "
                     "export it with `snarkjs zkey export verificationkey %s vk.json`", vk_path,
                     vk_path);
        else
            snprintf(why, sizeof(why), "%s", e.msg);
        goto out;
    }
    uint32_t parts;
    groth16_vk_prepare(&vk);
    rc = verify_partitions(&vk, vk_path, pub_path, proof_path, &parts, why, sizeof(why));
    if (rc <= 0) {
        if (rc == 0 && !quiet)
            printf("OK: %u partitions\n", parts);
        goto done;
    }
    rc = 0;
    if ((rc = groth16_public_read_json(&pub, &n_pub, pub_path, &e)) < 0 ||
        (rc = groth16_proof_read_json(&p, vk.curve, proof_path, &e)) < 0) {
        snprintf(why, sizeof(why), "%s", e.msg);
        goto out;
    }
    const struct curve_info *ci = curve_get(vk.curve);
    if (p.curve != vk.curve) {
        snprintf(why, sizeof(why), "%s: the proof is on %s but %s is a %s key", proof_path,
                 curve_get(p.curve)->name, vk_path, ci->name);
        rc = -SP_EMISMATCH;
        goto out;
    }
    if (n_pub != vk.n_public) {
        snprintf(why, sizeof(why), "%s: %u public signals, but %s expects %u", pub_path, n_pub,
                 vk_path, vk.n_public);
        rc = -SP_EMISMATCH;
        goto out;
    }
    for (uint32_t i = 0; i < n_pub; i++)
        if (!curve_scalar_below_r(ci, pub + 32 * (size_t)i)) {
            snprintf(why, sizeof(why), "%s: public signal %u is not below r", pub_path, i);
            rc = -SP_ERANGE;
            goto out;
        }
    uint64_t t0 = now_ns();
    groth16_vk_prepare(&vk);
    uint64_t t1 = now_ns();
    uint64_t *wall = calloc(repeat, sizeof(uint64_t)), *cpu = calloc(repeat, sizeof(uint64_t));
    if (!wall || !cpu) {
        free(wall);
        free(cpu);
        snprintf(why, sizeof(why), "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    for (unsigned i = 0; i < repeat && rc == 0; i++) {
        uint64_t w0 = now_ns(), c0 = thread_cpu_ns();
        rc = groth16_verify(&vk, pub, n_pub, &p, 1, &e);
        cpu[i] = thread_cpu_ns() - c0;
        wall[i] = now_ns() - w0;
    }
    if (timing && rc == 0)
        fprintf(stderr, "slotprove verify: %s: key preparation (e(alpha, beta)) %.3f ms; "
                "verification %.3f ms wall, %.3f ms CPU per proof (median of %u, one thread)\n",
                ci->name, (t1 - t0) / 1e6, median_ns(wall, repeat) / 1e6,
                median_ns(cpu, repeat) / 1e6, repeat);
    free(wall);
    free(cpu);
    if (rc == -SP_EVERIFY)
        snprintf(why, sizeof(why), "%s: %s (the proof does not match %s and %s)", proof_path,
                 e.msg, vk_path, pub_path);
    else if (rc < 0)
        snprintf(why, sizeof(why), "%s: %s", proof_path, e.msg);
out:
    if (rc == 0 && !quiet)
        printf("OK\n");
done:
    if (rc != 0 && !quiet)
        fprintf(stderr, "slotprove verify: INVALID: %s\n", why);
    free(pub);
    groth16_vk_free(&vk);
    return rc == 0 ? 0 : 1;
}
