/*
 * fullprove_cmd.c — `slotprove fullprove INPUT.json PROGRAM CIRCUIT.zkey
 * PROOF.json PUBLIC.json`: inputs to proof in one command, with the
 * arguments of `snarkjs groth16 fullprove` in the same order.
 *
 * PROGRAM is the circuit's witness program: the executable circom --c's
 * circuit_cpp/ Makefile builds (its .dat beside it), or the .wasm from
 * circom --wasm (generate_witness.js and witness_calculator.js beside it;
 * node is then needed at run time). synthd runs it contained
 * (synthd/witness_program.h) and the witness goes straight into the slot;
 * the rest is `prove`: the same process group, outputs, self-check and
 * exit codes. A witness program's failure fails at once, naming the input
 * and the program's own message; it is never retried.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "core.h"
#include "log.h"
#include "loop.h"
#include "output.h"
#include "payload.h"
#include "proc.h"
#include "prove_bellperson.h"
#include "prove_opts.h"
#include "sandbox_check.h"
#include "submit.h"
#include "stop_signals.h"
#include "witness_job.h"
#include "zkey.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove fullprove [options] INPUT.json PROGRAM CIRCUIT.zkey PROOF.json PUBLIC.json\n"
            "       slotprove fullprove --params P.params --pce C.pce [options] INPUT PROGRAM OUT\n"
            "                       (bellperson keys: `slotprove fullprove --params --help`)\n"
            "\n"
            "Computes the witness of INPUT.json with the circuit's witness program, then\n"
            "proves it as `slotprove prove` does (snarkjs groth16 fullprove's arguments).\n"
            "PROGRAM is told apart by content: an ELF executable built from circom --c's\n"
            "circuit_cpp/ (run with its .dat beside it), or the circuit's .wasm from\n"
            "circom --wasm, run by node with circom's generate_witness.js and\n"
            "witness_calculator.js beside it (node is then needed: $SLOTPROVE_NODE or PATH).\n"
            "\n"
            "options:\n");
    prove_opts_help(f, 1);
    fprintf(f,
            "\n"
            "A failing witness program (an assert of the circuit, a crash, a limit, output\n"
            "that is not a witness for the key) fails with \"INPUT: the witness program\n"
            "failed: <its message> (exit N | signal | limit)\" and writes nothing; one made\n"
            "for another circuit than the key's names both wire counts and asks \"made for\n"
            "another circuit?\".\n"
            "\n"
            "SIGINT, SIGTERM or SIGHUP stops the program and the children and writes nothing.\n"
            "\n"
            "Exit status: 0 proof written, 1 bad input or proving failed, 2 usage error,\n"
            "128 + N stopped by signal N.\n");
}

struct fullprove_run {
    int quiet, ended;
    uint64_t t_start, key_check_ns, key_points;
};

static void on_synthesized(void *ctx, const struct job *j, uint32_t part, uint32_t slot,
                           uint64_t synth_ns)
{
    struct fullprove_run *r = ctx;
    (void)part;
    if (r->quiet)
        return;
    fprintf(stderr, "slotprove: %s: witness computed and synthesized into slot %u at "
                    "%.3f ms; proving\n", j->parts[0].wname, slot, (now_ns() - r->t_start) / 1e6);
    fprintf(stderr, "  %-10s %10.3f ms (%llu zkey points on their curves, while synthd and "
                    "gpud start)\n", "key_check", r->key_check_ns / 1e6,
            (unsigned long long)r->key_points);
    fprintf(stderr, "  %-10s %10.3f ms (synthd, after the witness program: its .wtns read "
                    "and checked, a, b)\n", stage_name(STAGE_SYNTH), synth_ns / 1e6);
}

static void on_progress(void *ctx, const struct job *j, uint32_t part, enum stage s, uint64_t ns)
{
    struct fullprove_run *r = ctx;
    (void)j;
    (void)part;
    if (!r->quiet)
        fprintf(stderr, "  %-10s %10.3f ms\n", stage_name(s), ns / 1e6);
}

static void on_job_ended(void *ctx, struct job *j)
{
    (void)j;
    ((struct fullprove_run *)ctx)->ended = 1;
}

int cmd_fullprove(int argc, char **argv)
{
    stop_signals_block(NULL); /* before any thread exists (stop_signals.h) */
    if (bellperson_wanted(argc, argv, "--params")) /* prove_bellperson.c */
        return cmd_fullprove_bellperson(argc, argv);
    static struct core core;
    struct fullprove_run r = { 0, 0, 0, 0, 0 };
    struct prove_opts po;
    int first;
    int prc = prove_opts_parse("fullprove", argc, argv, 1, 5,
                               "INPUT.json PROGRAM CIRCUIT.zkey PROOF.json PUBLIC.json", usage, &po,
                               &first);
    if (prc >= 0)
        return prc;
    r.quiet = po.quiet;
    const char *input_path = argv[first], *prog_path = argv[first + 1];
    const char *zkey_path = argv[first + 2];
    const char *proof_path = argv[first + 3], *public_path = argv[first + 4];
    int orc = output_check_args("fullprove", proof_path, public_path);
    if (orc != 0)
        return orc;
    uint64_t t_start = now_ns();
    r.t_start = t_start;
    struct sp_err e = { "" };
    struct zkey zk;
    static char prog_abs[4096];
    int zfd = -1, ifd = -1, pfd = -1, paux[2] = { -1, -1 }, rc = 1, sfd = stop_signals_fd();
    memset(&zk, 0, sizeof(zk));
    core_init(&core);
    log_setup("slotprove", 0, LOG_WARN, r.quiet);

    /* never run a program outside its box (sandbox_check.h) */
    if (witness_sandbox_check(core.no_sandbox, sizeof(core.no_sandbox)) < 0) {
        sp_fail(&e, -EPERM, "%s: %s", prog_path, core.no_sandbox);
        goto out;
    }
    /* bad files fail before any process starts (the key's points are
     * checked below, while synthd and gpud start) */
    if ((zfd = open_input(zkey_path, &e)) < 0 || zkey_open(&zk, zfd, zkey_path, &e) < 0 ||
        (ifd = open_input(input_path, &e)) < 0 ||
        (pfd = witness_program_open(prog_path, prog_abs, sizeof(prog_abs), paux, &e)) < 0)
        goto out;

    core.o = (struct core_opts){
        .synthds = 1, .gpuds = 1, .slots = 1, .slot_bytes = payload_layout(zk.domain_size, zk.n_vars).total,
        .backend = po.backend, .gpu_mem = po.gpu_mem, .threads = po.threads, .max_attempts = 3,
        .result_ttl_s = 3600, .file_timeout_s = 3600, .max_queued = 1, .no_verify = po.no_verify,
        .one_job = 1,
    };
    witness_limits_set(&core.o, po.witness_mem, po.witness_cpu_s, po.witness_wall_s);
    core.hooks = (struct core_hooks){ .ctx = &r, .synthesized = on_synthesized,
                                      .progress = on_progress, .job_ended = on_job_ended };
    uint32_t key_id;
    int kfd = dup(zfd); /* the key cache keeps its own descriptor */
    if (kfd < 0) {
        sp_fail(&e, -errno, "%s: dup: %s", zkey_path, strerror(errno));
        goto out;
    }
    /* synthd and gpud start (exec, map the pool) while this process checks
     * every point of the key: the check is whole before the key is sent */
    if (core_start(&core, &e) < 0) {
        close(kfd);
        goto out;
    }
    if (keys_add_fd(&core.keys, kfd, zkey_path, "fullprove", &key_id, &e) < 0)
        goto out;
    r.key_check_ns = core.keys.keys[key_id].check_ns;
    r.key_points = core.keys.keys[key_id].check_points;

    struct submission sub = { .key = "fullprove", .zkey = "", .n_witnesses = 1, .inputs = 1,
                              .witnesses = { input_path } };
    struct job *j;
    int fds[1] = { ifd };
    if (core_submit(&core, getuid(), &sub, fds, 1, &j, &e) < 0)
        goto out;
    ifd = fds[0]; /* -1: the job owns it */
    if (witness_job_attach(j, pfd, paux, prog_abs, &e) < 0)
        goto out;

    int sig = core_loop_until(&core, &r.ended, sfd);
    if (sig > 0) {
        rc = stopped_by_signal(sig, &e);
        goto out;
    }
    if (j->state != JOB_DONE) {
        sp_fail(&e, SP_EINTERNAL, "%s", j->error[0] ? j->error : "proving failed");
        goto out;
    }
    const char *paths[2] = { proof_path, public_path };
    char *proof_text = proof_to_json(&j->parts[0].proof);
    const char *texts[2] = { proof_text, j->parts[0].public_json };
    if (!proof_text)
        sp_fail(&e, -ENOMEM, "out of memory");
    if (!proof_text || write_outputs(2, paths, texts, &e) < 0) {
        free(proof_text);
        goto out;
    }
    free(proof_text);
    if (!r.quiet)
        fprintf(stderr, "  %-10s %10.3f ms (wall: processes, key load, witness, proof)\n",
                "total", (now_ns() - t_start) / 1e6);
    rc = 0;
out:
    core_shutdown(&core);
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "proving failed");
    zkey_close(&zk);
    if (zfd >= 0)
        close(zfd);
    if (ifd >= 0)
        close(ifd);
    if (pfd >= 0)
        close(pfd);
    if (sfd >= 0)
        close(sfd);
    for (int a = 0; a < 2; a++)
        if (paux[a] >= 0)
            close(paux[a]);
    return rc;
}
