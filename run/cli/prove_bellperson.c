/*
 * prove_bellperson.c - `slotprove prove --params P.params --pce C.pce
 * [options] WITNESS... OUT`: proves one job of bellperson partitions (one
 * witness each, in order) and writes their 192-byte proofs concatenated to
 * OUT. `slotprove fullprove --params P.params --pce C.pce [options]
 * INPUT.json PROGRAM OUT` is the same job of one partition whose witness
 * the witness program computes from INPUT.json in synthd (circom's native
 * contract `PROGRAM INPUT OUT.wtns`, in its sandbox: synthd/witness_program.h,
 * common/README-bellperson.md "Witness programs").
 *
 * As `prove` does for a zkey (prove_cmd.c), this is the daemon's core with
 * one job and no socket: the key goes into the core's key cache (every
 * point checked, run/sup/keys_bellperson.c), one synthd computes each
 * partition's a, b from the PCE (synthd/bellperson_synth.h), one gpud
 * proves it on its backend (CPU, or CUDA with --backend cuda/auto and a
 * GPU) and checks it against the file's vk; the same crash recovery. This
 * process never touches the points or the slots.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "bellperson_proof.h"
#include "core.h"
#include "groth16_json.h"
#include "keys_bellperson.h"
#include "log.h"
#include "loop.h"
#include "output.h"
#include "payload.h"
#include "proc.h"
#include "prove_bellperson.h"
#include "sandbox_check.h"
#include "submit.h"
#include "stop_signals.h"
#include "witness_job.h"

int bellperson_wanted(int argc, char **argv, const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strncmp(argv[i], flag, n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
            return 1;
    }
    return 0;
}

static void usage_fullprove(FILE *f)
{
    fprintf(f,
            "usage: slotprove fullprove --params P.params --pce C.pce [options] INPUT PROGRAM OUT\n"
            "\n"
            "Computes one bellperson partition's witness with PROGRAM, then proves it as\n"
            "`slotprove prove --params --pce` does, writing the 192-byte proof to OUT.\n"
            "PROGRAM is run as circom's native witness programs are: `PROGRAM INPUT\n"
            "OUT.wtns`, an ELF executable with PROGRAM.dat beside it (the one data file it\n"
            "may read: it runs in synthd's sandbox), writing a .wtns of BLS12-381 whose\n"
            "values are bellperson's [inputs | aux] (wire 0 = 1, the public inputs, the aux\n"
            "wires; common/README-bellperson.md). A .wasm from circom --wasm is taken too.\n"
            "\n"
            "options: those of `slotprove prove --params --help`, and\n"
            "  --witness-mem SIZE      memory limit of the witness program (default 8G)\n"
            "  --witness-cpu S         its CPU-second limit (default 3600)\n"
            "  --witness-time S        its wall-clock limit (default 3600)\n"
            "\n"
            "A failing witness program (a crash, a limit, output that is not a witness for\n"
            "the key) fails with \"INPUT: the witness program failed: <its message> (...)\"\n"
            "and writes nothing; one whose witness has another wire count than the key's\n"
            "names both and asks \"made for another circuit?\".\n"
            "\n"
            "Exit status: 0 proof written, 1 bad input or a failed proof (nothing written),\n"
            "2 usage error, 128 + N stopped by signal N (nothing written).\n");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove prove --params P.params --pce C.pce [options] WITNESS.wtns... OUT\n"
            "\n"
            "Proves bellperson partitions (Filecoin's Groth16 over BLS12-381): P.params is\n"
            "bellperson's parameter file, C.pce cuzk's pre-compiled constraint file for the\n"
            "same circuit, each WITNESS a .wtns of one partition (BLS12-381's r, nWitness =\n"
            "inputs + aux, wire 0 = 1, the inputs then the aux wires; at most %d). OUT\n"
            "receives one 192-byte proof per witness, in order (compressed A || B || C, as\n"
            "bellperson's Proof::write). Every point of P.params is checked (on the curve,\n"
            "in the subgroup) when it is loaded, and every proof against P.params's own vk\n"
            "before OUT is written. It runs the daemon's process group (one synthd, one\n"
            "gpud) for one job.\n"
            "\n"
            "options:\n"
            "  --backend auto|cpu|cuda  gpud's backend (default auto: CUDA on the first\n"
            "                          visible GPU where this build has it, else the CPU)\n"
            "  --gpu-mem SIZE          device memory gpud may use (e.g. 24G; default: the\n"
            "                          GPU's free memory less a margin)\n"
            "  --threads N             worker threads per process, 0..1024 (default 0: all CPUs)\n"
            "  --json PROOF PUBLIC     also write snarkjs's proof.json and public.json (one\n"
            "                          witness): `snarkjs groth16 verify` accepts them with\n"
            "                          the same key's vk.json\n"
            "  --no-subgroup-check     skip the subgroup tests at load (on-curve checks stay;\n"
            "                          for a file already checked once)\n"
            "  -q, --quiet             no progress on stderr\n"
            "  -h, --help              this text\n"
            "\n"
            "Exit status: 0 proofs written, 1 bad input or a failed proof (nothing written),\n"
            "2 usage error, 128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP; nothing\n"
            "written).\n",
            JOB_MAX_PARTS);
}

struct bp_run {
    const char *cmd; /* "slotprove prove" or "slotprove fullprove", for messages */
    int quiet, ended;
    uint64_t t0;
};

static void on_hello(void *ctx, const struct kid *k, const char *text)
{
    struct bp_run *r = ctx;
    if (!r->quiet && k->role == ROLE_GPUD)
        fprintf(stderr, "%s: gpud pid %d, backend %s\n", r->cmd, (int)k->p.pid, text);
}

static void on_progress(void *ctx, const struct job *j, uint32_t part, enum stage s, uint64_t ns)
{
    struct bp_run *r = ctx;
    if (!r->quiet && s == STAGE_VERIFY)
        fprintf(stderr, "%s: partition %u (%s): proved and checked (check %.3f ms), "
                "%.3f s since start\n", r->cmd, part, j->parts[part].wname, ns / 1e6,
                (now_ns() - r->t0) / 1e9);
}

static void on_job_ended(void *ctx, struct job *j)
{
    (void)j;
    ((struct bp_run *)ctx)->ended = 1;
}

/* The job's proofs (binary, as gpud sent them) as 192 bytes each. */
static int proofs_bytes(const struct job *j, uint32_t n, uint8_t *out, struct sp_err *e)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = bp_proof_from_groth16(out + (size_t)i * BP_PROOF_BYTES, &j->parts[i].proof,
                                       j->parts[i].wname, e);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* prove (inputs 0: WITNESS... OUT) or fullprove (inputs 1: INPUT PROGRAM
 * OUT, the witness program's limits taken too); cmd names it in messages. */
static int bp_job(int argc, char **argv, int inputs)
{
    const char *params = NULL, *pce = NULL, *jp = NULL, *jq = NULL, *backend = "auto";
    const char *cmd = inputs ? "slotprove fullprove" : "slotprove prove";
    void (*use)(FILE *) = inputs ? usage_fullprove : usage;
    unsigned threads = 0, wcpu = 0, wtime = 0;
    uint64_t gpu_mem = 0, wmem = 0;
    int quiet = 0, nosub = 0, i;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            use(stdout);
            return 0;
        }
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--params") == 0 && more)
            params = argv[++i];
        else if (strcmp(a, "--pce") == 0 && more)
            pce = argv[++i];
        else if (strcmp(a, "--threads") == 0 && more) {
            if (parse_count(argv[++i], 0, 1024, &threads) < 0) {
                fprintf(stderr, "%s: --threads \"%s\": want 0..1024\n", cmd, argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--gpu-mem") == 0 && more) {
            if (!(gpu_mem = parse_size(argv[++i]))) {
                fprintf(stderr, "%s: --gpu-mem %s: want SIZE (e.g. 24G)\n", cmd, argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--backend") == 0 && more) {
            backend = argv[++i];
            if (backend_arg_check(cmd, backend))
                return 2;
        } else if (strcmp(a, "--json") == 0 && i + 2 < argc)
            jp = argv[i + 1], jq = argv[i + 2], i += 2;
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            quiet = 1;
        else if (strcmp(a, "--no-subgroup-check") == 0)
            nosub = 1;
        else if (inputs && strcmp(a, "--witness-mem") == 0 && more) {
            if (!(wmem = parse_size(argv[++i]))) {
                fprintf(stderr, "%s: --witness-mem %s: want SIZE (e.g. 4G)\n", cmd, argv[i]);
                return 2;
            }
        } else if (inputs && (strcmp(a, "--witness-cpu") == 0 || strcmp(a, "--witness-time") == 0) &&
                   more) {
            if (parse_count(argv[++i], 1, 30 * 86400, a[10] == 'c' ? &wcpu : &wtime) < 0) {
                fprintf(stderr, "%s: %s %s: want 1..2592000 seconds\n", cmd, a, argv[i]);
                return 2;
            }
        }
        else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "%s: unknown or incomplete option %s\n\n", cmd, a);
            use(stderr);
            return 2;
        }
    }
    if (!params || !pce || argc - i < 2 || (inputs && argc - i != 3)) {
        fprintf(stderr, "%s: --params, --pce, %s and OUT are required\n\n", cmd,
                inputs ? "INPUT, PROGRAM" : "a witness");
        use(stderr);
        return 2;
    }
    if (inputs && jp) {
        fprintf(stderr, "%s: --json is prove's (fullprove --params writes OUT only)\n", cmd);
        return 2;
    }
    uint32_t nwit = inputs ? 1 : (uint32_t)(argc - i - 1);
    if (nwit > JOB_MAX_PARTS) {
        fprintf(stderr, "%s: %u witnesses: at most %d in one run\n", cmd, nwit,
                JOB_MAX_PARTS);
        return 2;
    }
    if (jp && nwit != 1) {
        fprintf(stderr, "%s: --json takes one witness\n", cmd);
        return 2;
    }
    const char *out = argv[argc - 1];
    for (int k = i; k < argc - 1; k++)
        if (strcmp(argv[k], out) == 0 || strcmp(out, params) == 0 || strcmp(out, pce) == 0) {
            fprintf(stderr, "%s: OUT %s is also an input\n", cmd, out);
            return 2;
        }

    static struct core core;
    struct bp_run r = { .cmd = cmd, .quiet = quiet, .t0 = now_ns() };
    struct sp_err e = { "" };
    int wfds[JOB_MAX_PARTS], rc = 1, prog = -1, paux[2] = { -1, -1 };
    static char prog_abs[4096];
    uint32_t nopen = 0, key_id;
    uint8_t *bytes = NULL;
    core_init(&core);
    log_setup("slotprove", 0, LOG_WARN, quiet);
    /* never run a program outside its box (sandbox_check.h); bad files fail
     * before the key's points are checked */
    if (inputs && witness_sandbox_check(core.no_sandbox, sizeof(core.no_sandbox)) < 0) {
        sp_fail(&e, -EPERM, "%s: %s", argv[i + 1], core.no_sandbox);
        goto out;
    }
    if (inputs && (prog = witness_program_open(argv[i + 1], prog_abs, sizeof(prog_abs), paux,
                                               &e)) < 0)
        goto out;
    for (; nopen < nwit; nopen++)
        if ((wfds[nopen] = open_input(argv[i + (int)nopen], &e)) < 0)
            goto out;
    int pfd = open_input(params, &e), cfd = pfd >= 0 ? open_input(pce, &e) : -1;
    if (pfd < 0 || cfd < 0) {
        if (pfd >= 0)
            close(pfd);
        goto out;
    }
    uint64_t t_key = now_ns();
    if (keys_add_bellperson(&core.keys, pfd, cfd, params, pce, "prove", threads, !nosub, &key_id,
                            &e) < 0)
        goto out;
    const struct key_shape *zk = &core.keys.keys[key_id].shape;
    if (!quiet)
        fprintf(stderr, "%s: bellperson key %s: %u public inputs, %u wires, domain "
                "2^%u; %llu points checked%s in %.3f s\n", cmd, params, zk->n_public, zk->n_vars,
                zk->log_domain, (unsigned long long)core.keys.keys[key_id].check_points,
                nosub ? " (on the curve only)" : " (curve and subgroup)",
                (now_ns() - t_key) / 1e9);
    core.o = (struct core_opts){
        .synthds = 1, .gpuds = 1, .slots = nwit > 1 ? 2 : 1,
        .slot_bytes = payload_layout(zk->domain_size, zk->n_vars).total, .backend = backend,
        .gpu_mem = gpu_mem, .threads = threads, .max_attempts = 3, .result_ttl_s = 3600,
        .file_timeout_s = 3600, .max_queued = nwit, .one_job = inputs,
    };
    witness_limits_set(&core.o, wmem, wcpu, wtime);
    core.hooks = (struct core_hooks){ .ctx = &r, .hello = on_hello, .progress = on_progress,
                                      .job_ended = on_job_ended };
    if (core_start(&core, &e) < 0)
        goto out;
    struct submission sub = { .key = "prove", .zkey = "", .n_witnesses = nwit, .inputs = inputs };
    for (uint32_t k = 0; k < nwit; k++)
        sub.witnesses[k] = argv[i + (int)k];
    struct job *j;
    if (core_submit(&core, getuid(), &sub, wfds, (int)nwit, &j, &e) < 0)
        goto out;
    nopen = 0; /* the job owns them */
    if (inputs && witness_job_attach(j, prog, paux, prog_abs, &e) < 0)
        goto out;
    int sfd = stop_signals_fd(), sig = core_loop_until(&core, &r.ended, sfd);
    if (sfd >= 0)
        close(sfd);
    if (sig > 0) {
        rc = stopped_by_signal(sig, &e);
        goto out;
    }
    if (j->state != JOB_DONE) {
        sp_fail(&e, SP_EINTERNAL, "%s", j->error[0] ? j->error : "proving failed");
        goto out;
    }
    if (!(bytes = malloc((size_t)nwit * BP_PROOF_BYTES + 1))) {
        sp_fail(&e, -ENOMEM, "out of memory");
        goto out;
    }
    if (proofs_bytes(j, nwit, bytes, &e) < 0)
        goto out;
    {
        const char *paths[3] = { out, jp, jq };
        char *proof_text = jp ? proof_to_json(&j->parts[0].proof) : NULL;
        const char *texts[3] = { (const char *)bytes, proof_text, j->parts[0].public_json };
        size_t lens[3] = { (size_t)nwit * BP_PROOF_BYTES, 0, 0 };
        if (jp && !proof_text) {
            sp_fail(&e, -ENOMEM, "out of memory");
            goto out;
        }
        if (jp)
            lens[1] = strlen(texts[1]), lens[2] = strlen(texts[2]);
        int wrc = write_outputs_len(jp ? 3 : 1, paths, texts, lens, &e);
        free(proof_text);
        if (wrc < 0)
            goto out;
    }
    if (!quiet) {
        /* where each partition's time went: synthd's a, b, then gpud's stages (ms) */
        for (uint32_t k = 0; k < nwit; k++) {
            const struct job_part *jp_k = &j->parts[k];
            fprintf(stderr, "%s: partition %u: %s %.1f ms, gpud %s %.1f ms", cmd, k,
                    stage_name(STAGE_SYNTH), jp_k->synth_ns / 1e6, stage_name(STAGE_PROVE),
                    jp_k->times.ns[STAGE_PROVE] / 1e6);
            const char *sep = " (";
            for (int s = STAGE_NTT; s < STAGE_PROVE; s++) /* the stages a backend timed */
                if (jp_k->times.ns[s]) {
                    fprintf(stderr, "%s%s %.1f", sep, stage_name((enum stage)s),
                            jp_k->times.ns[s] / 1e6);
                    sep = ", ";
                }
            fprintf(stderr, "%s\n", sep[0] == ',' ? ")" : "");
        }
        fprintf(stderr, "%s: wrote %s (%u x %d bytes) in %.3f s\n", cmd, out, nwit,
                BP_PROOF_BYTES, (now_ns() - r.t0) / 1e9);
    }
    rc = 0;
out:
    core_shutdown(&core);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", cmd, e.msg[0] ? e.msg : "proving failed");
    for (uint32_t k = 0; k < nopen; k++)
        close(wfds[k]);
    if (prog >= 0)
        close(prog);
    for (int a = 0; a < 2; a++)
        if (paux[a] >= 0)
            close(paux[a]);
    free(bytes);
    return rc;
}

int cmd_prove_bellperson(int argc, char **argv)
{
    return bp_job(argc, argv, 0);
}

int cmd_fullprove_bellperson(int argc, char **argv)
{
    return bp_job(argc, argv, 1);
}
